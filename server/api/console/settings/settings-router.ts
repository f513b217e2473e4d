import { Router } from 'express';

import { settingsPatchSchema } from '../../../config/settings-schema';
import { ok } from '../../../lib/envelope';
import { parseInput } from '../../../lib/validation';
import type { HeraldParts } from '../../../parts';

/** What the Settings page shows beside the settings: the About panel's facts. */
export type SettingsRouterDeps = Pick<
  HeraldParts,
  'settings' | 'version' | 'dataDir' | 'listenUrl' | 'dispatcher'
>;

export function createSettingsRouter(deps: SettingsRouterDeps): Router {
  const router = Router();
  const view = () => ({
    ...deps.settings.get(),
    about: {
      version: deps.version,
      dataDir: deps.dataDir,
      listen: deps.listenUrl(),
      deliveriesPaused: deps.dispatcher.paused,
    },
  });
  router.get('/settings', (_req, res) => ok(res, view()));
  router.put('/settings', async (req, res) => {
    await deps.settings.update(parseInput(settingsPatchSchema, req.body));
    ok(res, view());
  });
  return router;
}
