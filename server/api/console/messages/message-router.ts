import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { MessageService } from '../../../features/hosted/message-service';
import { consoleRoutesOn } from '../console-route';
import { pagingOf } from '../paging';

const routes = consoleRoutes.messages;

export function createMessageRouter(messages: MessageService): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.list, ({ query }) =>
    messages.list({ q: query.q, unread: query.unread, sort: query.sort }, pagingOf(query)),
  );
  // Before /messages/:id, which would read these names as ids.
  serve(routes.unreadCount, async () => ({ count: await messages.unreadCount() }));
  serve(routes.readAll, async () => ({ updated: await messages.readAll() }));
  serve(routes.get, ({ params }) => messages.detail(params.id));
  serve(routes.setRead, ({ params, body }) => messages.setRead(params.id, body.read));
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
