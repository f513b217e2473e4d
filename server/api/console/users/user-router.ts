import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { SessionList } from '../../../features/auth/session-list';
import type { UserService } from '../../../features/auth/user-service';
import { consoleRoutesOn } from '../console-route';
import type { LiveStreams } from '../events/live-streams';

const routes = consoleRoutes.users;

/** The team's accounts (administrators only, by the access table). */
export function createUserRouter(
  users: UserService,
  sessions: SessionList,
  streams: LiveStreams,
): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.list, async () => {
    const items = await users.list();
    return { items, total: items.length, page: 1, pageSize: items.length };
  });
  serve(routes.create, ({ body }) => users.create(body));
  serve(routes.update, async ({ params, body }) => {
    const change = await users.update(params.id, body);
    // Streams were authorised under the old password or role: they end and reconnect (or not).
    if (change.signedOut || change.roleChanged) streams.endUser(params.id);
    return change.account;
  });
  serve(routes.remove, async ({ params }) => {
    await users.remove(params.id);
    streams.endUser(params.id);
    return null;
  });
  serve(routes.invite, ({ params }) => users.reissueInvite(params.id));
  serve(routes.sessions, async ({ params }, req) => ({
    items: await sessions.of(params.id, req.sessionKey),
  }));
  serve(routes.revokeSessions, async ({ params }) => {
    const revoked = await sessions.revokeAll(params.id);
    streams.endUser(params.id);
    return { revoked };
  });
  return router;
}
