import { Router } from 'express';
import { z } from 'zod';

import { ok } from '../../../lib/envelope';
import { parsePaging } from '../../../lib/paging';
import { parseId, parseInput } from '../../../lib/validation';
import type { MessageService } from '../../../features/hosted/message-service';

export function createMessageRouter(messages: MessageService): Router {
  const router = Router();
  router.get('/messages', async (req, res) => {
    const q = typeof req.query.q === 'string' && req.query.q ? req.query.q : undefined;
    const unread = req.query.unread === 'true' || req.query.unread === '1';
    ok(res, await messages.list({ q, unread }, parsePaging(req.query)));
  });
  router.get('/messages/unread-count', async (_req, res) =>
    ok(res, { count: await messages.unreadCount() }),
  );
  router.post('/messages/read-all', async (_req, res) =>
    ok(res, { updated: await messages.readAll() }),
  );
  router.get('/messages/:id', async (req, res) =>
    ok(res, await messages.detail(parseId(req.params.id))),
  );
  router.patch('/messages/:id', async (req, res) => {
    const body = parseInput(
      z.object({ read: z.boolean({ error: 'must be true or false' }) }).strict(),
      req.body,
    );
    ok(res, await messages.setRead(parseId(req.params.id), body.read));
  });
  router.post('/messages/:id/link', async (req, res) =>
    ok(res, await messages.createLink(parseId(req.params.id))),
  );
  router.delete('/messages/:id/link', async (req, res) => {
    await messages.revokeLink(parseId(req.params.id));
    ok(res, null);
  });
  router.delete('/messages/:id', async (req, res) => {
    await messages.remove(parseId(req.params.id));
    ok(res, null);
  });
  return router;
}
