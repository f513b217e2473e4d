import { Router } from 'express';
import { z } from 'zod';

import { ok } from '../../../lib/envelope';
import { parsePaging } from '../../../lib/paging';
import { parseId, parseInput } from '../../../lib/validation';
import type { LogService } from '../../../features/history/log-service';

const optionalId = z.coerce.number().int().positive().optional();
const date = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO date or time')
  .transform((s) => new Date(s))
  .optional();

const filterSchema = z.object({
  q: z.string().max(200).optional(),
  api: z.enum(['v1', 'v2']).optional(),
  taskId: optionalId,
  templateId: optionalId,
  status: z.enum(['pending', 'sent', 'partial', 'failed']).optional(),
  from: date,
  to: date,
});

export function createLogRouter(logs: LogService): Router {
  const router = Router();
  router.get('/logs', async (req, res) => {
    const clean = Object.fromEntries(Object.entries(req.query).filter(([, v]) => v !== ''));
    const filter = parseInput(filterSchema, {
      q: clean.q,
      api: clean.api,
      taskId: clean.taskId,
      templateId: clean.templateId,
      status: clean.status,
      from: clean.from,
      // A bare date as `to` means the whole of that day.
      to:
        typeof clean.to === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(clean.to)
          ? `${clean.to}T23:59:59.999Z`
          : clean.to,
    });
    ok(res, await logs.list(filter, parsePaging(req.query)));
  });
  router.get('/logs/:id', async (req, res) => ok(res, await logs.detail(parseId(req.params.id))));
  router.post('/deliveries/:id/retry', async (req, res) =>
    ok(res, await logs.retry(parseId(req.params.id))),
  );
  return router;
}
