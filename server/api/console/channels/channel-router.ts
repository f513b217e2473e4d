import { Router } from 'express';
import { z } from 'zod';

import { ok } from '../../../lib/envelope';
import { parseId, parseInput } from '../../../lib/validation';
import type { ChannelService } from '../../../features/channel-config/channel-service';

const name = z.string({ error: 'is required' }).trim().min(1, 'is required').max(100);
const description = z.string().max(2000);
const config = z.record(z.string(), z.unknown(), { error: 'must be an object' });

export function createChannelRouter(channels: ChannelService): Router {
  const router = Router();
  router.get('/channel-types', (_req, res) => ok(res, channels.channelTypes()));
  router.get('/channels', async (req, res) => {
    const items = await channels.list({
      type: typeof req.query.type === 'string' ? req.query.type : undefined,
      q: typeof req.query.q === 'string' ? req.query.q : undefined,
    });
    ok(res, { items, total: items.length, page: 1, pageSize: items.length });
  });
  router.post('/channels', async (req, res) => {
    const body = parseInput(
      z
        .object({
          name,
          description: description.optional(),
          type: z.string({ error: 'is required' }),
          config: config.optional(),
        })
        .strict(),
      req.body,
    );
    ok(res, await channels.create(body));
  });
  router.get('/channels/:id', async (req, res) =>
    ok(res, await channels.getDto(parseId(req.params.id))),
  );
  router.put('/channels/:id', async (req, res) => {
    const body = parseInput(
      z
        .object({
          name: name.optional(),
          description: description.optional(),
          type: z.string().optional(),
          config: config.optional(),
        })
        .strict(),
      req.body,
    );
    ok(res, await channels.update(parseId(req.params.id), body));
  });
  router.delete('/channels/:id', async (req, res) => {
    await channels.remove(parseId(req.params.id));
    ok(res, null);
  });
  router.post('/channels/:id/test', async (req, res) => {
    const body = parseInput(
      z
        .object({
          title: z.string().max(1000).optional(),
          content: z.string().max(20_000).optional(),
          recipient: z.string().max(1000).optional(),
          /** An unsaved edit of the config to try; saved secrets fill in its masked values. */
          config: config.optional(),
        })
        .strict(),
      req.body ?? {},
    );
    ok(res, await channels.test(parseId(req.params.id), body));
  });
  return router;
}
