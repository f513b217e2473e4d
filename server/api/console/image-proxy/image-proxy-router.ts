import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { ImageProxyService } from '../../../features/image-proxy/image-proxy-service';
import { consoleRoutesOn } from '../console-route';

const routes = consoleRoutes.imageProxy;

/** The proxy, with each person's choices (`choices`). */
export type ImageProxyRouterDeps = ImageProxyService;

/**
 * The image proxy's address (the bytes of an image, not the envelope; a refusal is the
 * envelope as usual, before any byte) and each person's remote-image choices.
 */
export function createImageProxyRouter(proxy: ImageProxyRouterDeps): Router {
  const { choices } = proxy;
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.image, async ({ query }, _req, res) => {
    const image = await proxy.image(query);
    res.setHeader('Content-Type', image.type);
    res.setHeader('Content-Length', String(image.body.length));
    // The type was read from the bytes; the browser must not guess another (app.ts sets
    // nosniff too), and an image opened on its own runs nothing and embeds nothing.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Content-Disposition', 'inline');
    // The address is signed for a day and its bytes are fixed: the reader's browser may keep
    // them, no shared cache may (the address is one person's session's).
    res.setHeader('Cache-Control', 'private, max-age=86400, immutable');
    res.end(image.body);
  });
  serve(routes.choices, (_input, req) => choices.choices(req.user!.id));
  serve(routes.setAlways, ({ body }, req) => choices.setAlways(req.user!.id, body.always));
  serve(routes.setMessage, ({ params, body }, req) =>
    choices.setMessage(req.user!.id, params.id, body.show),
  );
  serve(routes.setSource, ({ params, body }, req) =>
    choices.setSource(req.user!.id, params.kind, params.id, body.show),
  );
  return router;
}
