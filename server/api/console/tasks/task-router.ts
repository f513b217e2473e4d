import { Router } from 'express';
import { z } from 'zod';

import { ok } from '../../../lib/envelope';
import { parsePaging } from '../../../lib/paging';
import { parseId, parseInput } from '../../../lib/validation';
import { instanceCreateSchema } from '../../../features/targets/instance-schemas';
import type { InstanceService } from '../../../features/targets/instance-service';
import type { TaskService } from '../../../features/targets/task-service';

const taskName = z.string({ error: 'is required' }).trim().min(1, 'is required').max(100);
const acceptLegacyToken = z.boolean({ error: 'must be true or false' });

const taskSchema = z
  .object({ name: taskName, acceptLegacyToken: acceptLegacyToken.optional() })
  .strict();

const taskUpdateSchema = z
  .object({ name: taskName, acceptLegacyToken })
  .partial()
  .strict()
  .refine((v) => v.name !== undefined || v.acceptLegacyToken !== undefined, {
    message: 'give name or acceptLegacyToken',
  });

export function createTaskRouter(tasks: TaskService, instances: InstanceService): Router {
  const router = Router();
  router.get('/tasks', async (req, res) => {
    const name = typeof req.query.name === 'string' && req.query.name ? req.query.name : undefined;
    ok(res, await tasks.list(name, parsePaging(req.query)));
  });
  router.post('/tasks', async (req, res) => {
    const input = parseInput(taskSchema, req.body);
    ok(res, await tasks.create(input.name, input.acceptLegacyToken ?? false));
  });
  router.get('/tasks/:id', async (req, res) => ok(res, await tasks.detail(parseId(req.params.id))));
  router.put('/tasks/:id', async (req, res) =>
    ok(res, await tasks.update(parseId(req.params.id), parseInput(taskUpdateSchema, req.body))),
  );
  router.delete('/tasks/:id', async (req, res) => {
    await tasks.remove(parseId(req.params.id));
    ok(res, null);
  });
  router.get('/tasks/:id/token', async (req, res) =>
    ok(res, { token: await tasks.token(parseId(req.params.id)) }),
  );
  router.post('/tasks/:id/token/rotate', async (req, res) =>
    ok(res, { token: await tasks.rotateToken(parseId(req.params.id)) }),
  );
  router.get('/tasks/:id/instances', async (req, res) => {
    const id = parseId(req.params.id);
    await tasks.get(id);
    ok(res, await instances.listFor({ kind: 'task', id }));
  });
  router.post('/tasks/:id/instances', async (req, res) => {
    const id = parseId(req.params.id);
    await tasks.get(id);
    ok(
      res,
      await instances.create({ kind: 'task', id }, parseInput(instanceCreateSchema, req.body)),
    );
  });
  return router;
}
