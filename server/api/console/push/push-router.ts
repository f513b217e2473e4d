import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { PushSubscriptionService } from '../../../features/web-push/subscription-service';
import type { VapidKeys } from '../../../features/web-push/vapid-keys';
import { consoleRoutesOn } from '../console-route';

const routes = consoleRoutes.push;

export interface PushRouterDeps {
  keys: VapidKeys;
  subscriptions: PushSubscriptionService;
}

/** Web Push (docs/reader.md): the VAPID key, and the signed-in person's own subscriptions. */
export function createPushRouter(deps: PushRouterDeps): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.key, async () => ({ publicKey: (await deps.keys.load()).publicKey }));
  serve(routes.list, async (_input, req) => ({
    items: await deps.subscriptions.list(req.user!.id),
  }));
  serve(routes.create, ({ body }, req) => deps.subscriptions.subscribe(req.user!.id, body));
  serve(routes.remove, async ({ params }, req) => {
    await deps.subscriptions.remove(req.user!.id, params.id);
    return null;
  });
  return router;
}
