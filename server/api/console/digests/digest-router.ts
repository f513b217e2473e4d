import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { DigestConsole } from '../../../features/digests/digest-console';
import { consoleRoutesOn } from '../console-route';

const routes = consoleRoutes.digests;

/** A task's or template's digest rule (docs/console-api.md "Digests"). */
export function createDigestRouter(digests: DigestConsole): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.taskGet, ({ params }) => digests.get('task', params.id));
  serve(routes.taskPut, ({ params, body }) => digests.put('task', params.id, body));
  serve(routes.taskRemove, async ({ params }) => {
    await digests.remove('task', params.id);
    return null;
  });
  serve(routes.templateGet, ({ params }) => digests.get('template', params.id));
  serve(routes.templatePut, ({ params, body }) => digests.put('template', params.id, body));
  serve(routes.templateRemove, async ({ params }) => {
    await digests.remove('template', params.id);
    return null;
  });
  serve(routes.instanceGet, ({ params }) => digests.get('instance', params.id));
  serve(routes.instancePut, ({ params, body }) => digests.put('instance', params.id, body));
  serve(routes.instanceRemove, async ({ params }) => {
    await digests.remove('instance', params.id);
    return null;
  });
  return router;
}
