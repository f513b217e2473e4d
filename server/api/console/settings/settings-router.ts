import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { HeraldParts } from '../../../parts';
import { consoleRoutesOn } from '../console-route';

const routes = consoleRoutes.settings;

/** What the Settings page shows beside the settings: the About panel's facts. */
export type SettingsRouterDeps = Pick<
  HeraldParts,
  'settings' | 'version' | 'dataDir' | 'listenUrl' | 'dispatcher'
>;

export function createSettingsRouter(deps: SettingsRouterDeps): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  const view = () => ({
    ...deps.settings.get(),
    about: {
      version: deps.version,
      dataDir: deps.dataDir,
      listen: deps.listenUrl(),
      deliveriesPaused: deps.dispatcher.paused,
    },
  });
  serve(routes.get, () => view());
  serve(routes.update, async ({ body }) => {
    await deps.settings.update(body);
    return view();
  });
  return router;
}
