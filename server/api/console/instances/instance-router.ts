import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { InstanceService } from '../../../features/sources/instance-service';
import { consoleRoutesOn } from '../console-route';

const routes = consoleRoutes.instances;

export function createInstanceRouter(instances: InstanceService): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.update, ({ params, body }) => instances.update(params.id, body));
  serve(routes.remove, async ({ params }) => {
    await instances.remove(params.id);
    return null;
  });
  return router;
}
