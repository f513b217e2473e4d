import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { ChannelService } from '../../../features/channel-config/channel-service';
import { consoleRoutesOn } from '../console-route';

const routes = consoleRoutes.channels;

export function createChannelRouter(channels: ChannelService): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.types, () => channels.channelTypes());
  serve(routes.list, async ({ query }) => {
    const items = await channels.list(query);
    return { items, total: items.length, page: 1, pageSize: items.length };
  });
  serve(routes.create, ({ body }) => channels.create(body));
  serve(routes.get, ({ params }) => channels.getDto(params.id));
  serve(routes.update, ({ params, body }) => channels.update(params.id, body));
  serve(routes.remove, async ({ params }) => {
    await channels.remove(params.id);
    return null;
  });
  serve(routes.testUnsaved, ({ body }) => channels.testUnsaved(body));
  serve(routes.test, ({ params, body }) => channels.test(params.id, body));
  return router;
}
