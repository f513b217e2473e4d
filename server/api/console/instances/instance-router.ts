import { Router } from 'express';

import { ok } from '../../../lib/envelope';
import { parseId, parseInput } from '../../../lib/validation';
import { instancePatchSchema } from '../../../features/targets/instance-schemas';
import type { InstanceService } from '../../../features/targets/instance-service';

export function createInstanceRouter(instances: InstanceService): Router {
  const router = Router();
  router.patch('/instances/:id', async (req, res) =>
    ok(
      res,
      await instances.update(parseId(req.params.id), parseInput(instancePatchSchema, req.body)),
    ),
  );
  router.delete('/instances/:id', async (req, res) => {
    await instances.remove(parseId(req.params.id));
    ok(res, null);
  });
  return router;
}
