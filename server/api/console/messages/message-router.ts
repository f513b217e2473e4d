import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { MessageService } from '../../../features/hosted/message-service';
import { consoleRoutesOn } from '../console-route';
import { pagingOf } from '../paging';

const routes = consoleRoutes.messages;

export function createMessageRouter(messages: MessageService): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  // Read state is the signed-in person's (docs/console-api.md, "Read state is per person").
  serve(routes.list, ({ query }, req) =>
    messages.list(
      req.user!.id,
      { q: query.q, unread: query.unread, sort: query.sort },
      pagingOf(query),
    ),
  );
  // Before /messages/:id, which would read these names as ids.
  serve(routes.unreadCount, async (_input, req) => ({
    count: await messages.unreadCount(req.user!.id),
  }));
  serve(routes.readAll, async (_input, req) => ({
    updated: await messages.readAll(req.user!.id),
  }));
  serve(routes.get, ({ params }, req) => messages.detail(req.user!.id, params.id));
  serve(routes.setRead, ({ params, body }, req) =>
    messages.setRead(req.user!.id, params.id, body.read),
  );
  serve(routes.createLink, ({ params }) => messages.createLink(params.id));
  serve(routes.revokeLink, async ({ params }) => {
    await messages.revokeLink(params.id);
    return null;
  });
  serve(routes.remove, async ({ params }) => {
    await messages.remove(params.id);
    return null;
  });
  return router;
}
