import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import { sessionsAwaitingTwoFactor } from '../../../features/auth/two-factor-shut-out';
import type { HeraldParts } from '../../../parts';
import { consoleRoutesOn } from '../console-route';
import type { LiveStreams } from '../events/live-streams';

const routes = consoleRoutes.settings;

/** What the Settings page shows beside the settings: the About panel's facts. */
export type SettingsRouterDeps = Pick<
  HeraldParts,
  'settings' | 'version' | 'dataDir' | 'listenUrl' | 'dispatcher'
>;

export function createSettingsRouter(deps: SettingsRouterDeps, streams: LiveStreams): Router {
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
    const wasRequired = deps.settings.get().requireTwoFactor;
    const next = await deps.settings.update(body);
    // Streams were opened before the requirement, as before a role change: a session it now
    // shuts out loses them, and its reconnect meets the requirement's 403.
    if (next.requireTwoFactor && !wasRequired) {
      for (const key of await sessionsAwaitingTwoFactor()) streams.endSession(key);
    }
    return view();
  });
  return router;
}
