import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { InstanceService } from '../../../features/sources/instance-service';
import type { TaskService } from '../../../features/sources/task-service';
import { consoleRoutesOn } from '../console-route';
import { pagingOf } from '../paging';

const routes = consoleRoutes.tasks;

export function createTaskRouter(tasks: TaskService, instances: InstanceService): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.list, ({ query }) => tasks.list(query.name, pagingOf(query)));
  serve(routes.create, ({ body }) => tasks.create(body.name, body.acceptLegacyToken ?? false));
  serve(routes.get, ({ params }) => tasks.detail(params.id));
  serve(routes.update, ({ params, body }) => tasks.update(params.id, body));
  serve(routes.remove, async ({ params }) => {
    await tasks.remove(params.id);
    return null;
  });
  serve(routes.token, async ({ params }) => ({ token: await tasks.token(params.id) }));
  serve(routes.rotateToken, async ({ params }) => ({
    token: await tasks.rotateToken(params.id),
  }));
  serve(routes.instances, async ({ params }) => {
    await tasks.get(params.id);
    return instances.listFor({ kind: 'task', id: params.id });
  });
  serve(routes.addInstance, async ({ params, body }) => {
    await tasks.get(params.id);
    return instances.create({ kind: 'task', id: params.id }, body);
  });
  return router;
}
