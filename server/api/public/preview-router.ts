import { Router } from 'express';

import { publicRoutes } from '../../../contract';
import { HostedMessage } from '../../db/models';
import { isPreviewKeyShaped } from '../../domain/preview-keys';
import { AppError, notFound } from '../../lib/errors';
import type { HeraldParts } from '../../parts';
import { safeHtmlOf } from '../../features/hosted/message-service';
import { hostedAttachmentsOf } from '../../features/hosted/hosted-attachments';
import type { RateLimiter } from '../../features/sending/rate-limiter';
import { contractRoutes } from '../contract-route';

/** Preview answers per client address per minute: plenty to read, far too few to guess keys. */
export const PREVIEW_PER_MINUTE = 60;

/**
 * GET /api/public/preview/:key: one hosted message by its share-link key, without login. It
 * answers only the message the key names and never lists anything; an unknown, revoked or
 * malformed key is one and the same 404.
 */
/** The preview route's own limiter, per client address, and the clock it counts by. */
export type PreviewRouterDeps = Pick<HeraldParts, 'clock'> & { limiter: RateLimiter };

export function createPreviewRouter(deps: PreviewRouterDeps): Router {
  const router = Router();
  const { limiter } = deps;

  contractRoutes(router, '')(publicRoutes.preview.preview, async ({ params }, req, res) => {
    // req.ip honours HERALD_TRUST_PROXY, so clients behind one proxy are still told apart.
    if (!(await limiter.allow(`ip:${req.ip ?? ''}`, PREVIEW_PER_MINUTE, deps.clock.now()))) {
      throw new AppError(
        429,
        `too many previews from this address: at most ${PREVIEW_PER_MINUTE} a minute; wait a minute and reload`,
      );
    }
    const { key } = params;
    // Looked up through the unique index only: no scan whose duration depends on the key.
    const m = isPreviewKeyShaped(key)
      ? await HostedMessage.findOne({ where: { previewKey: key } })
      : null;
    if (!m) {
      throw notFound('no message has this link: it was revoked, deleted or mistyped');
    }
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Robots-Tag', 'noindex, nofollow');
    return {
      title: m.title,
      content: m.content,
      format: m.format,
      url: m.url,
      safeHtml: safeHtmlOf(m.content, m.format),
      // The files' URLs are unguessable and already public to whoever got the message.
      attachments: await hostedAttachmentsOf(HostedMessage.sequelize!, m.id),
      createdAt: m.createdAt,
    };
  });

  return router;
}
