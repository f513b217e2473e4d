import { Router, type Request } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { MessageService } from '../../../features/hosted/message-service';
import { consoleRoutesOn } from '../console-route';
import { pagingOf } from '../paging';
import { accessOf, roleMay } from '../route-access';

const routes = consoleRoutes.messages;

/**
 * A share link opens the message to anyone who has it: only a role that may create one (and so
 * could share it anyway) is shown it; to the others a message reads as not shared.
 */
const shareLinkFor =
  (req: Request) =>
  <M extends { previewUrl: string | null }>(message: M): M =>
    roleMay(req.user!.role, accessOf(routes.createLink))
      ? message
      : { ...message, previewUrl: null };

export function createMessageRouter(messages: MessageService): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  // Read state is the signed-in person's (docs/console-api.md, "Read state is per person").
  serve(routes.list, async ({ query }, req) => {
    const page = await messages.list(
      req.user!.id,
      { q: query.q, unread: query.unread, sort: query.sort },
      pagingOf(query),
    );
    return { ...page, items: page.items.map(shareLinkFor(req)) };
  });
  // Before /messages/:id, which would read these names as ids.
  serve(routes.unreadCount, async (_input, req) => ({
    count: await messages.unreadCount(req.user!.id),
  }));
  serve(routes.readAll, async (_input, req) => ({
    updated: await messages.readAll(req.user!.id),
  }));
  serve(routes.get, async ({ params }, req) =>
    shareLinkFor(req)(await messages.detail(req.user!.id, params.id)),
  );
  serve(routes.setRead, async ({ params, body }, req) =>
    shareLinkFor(req)(await messages.setRead(req.user!.id, params.id, body.read)),
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
