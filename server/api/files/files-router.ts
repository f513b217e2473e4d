import { Router } from 'express';

import { publicRoutes } from '../../../contract';
import type { AttachmentService } from '../../features/attachments/attachment-service';
import { isAttachmentId } from '../../features/attachments/attachment-files';
import { notFound } from '../../lib/errors';
import { contractRoutes } from '../contract-route';

export type FilesRouterDeps = { attachments: Pick<AttachmentService, 'find' | 'open'> };

/**
 * RFC 6266's Content-Disposition with the name in both forms: ASCII for old clients, UTF-8
 * (filename*) for the rest.
 */
function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * GET /api/files/{id}/{filename}: a file sent with a message (issue 43 §2), for the platforms
 * that fetch it and the people who open the link. No sign-in: the id (144 random bits) is the
 * credential, as a share link's key is. Only the sniffed image types are shown inline;
 * anything else (HTML, SVG, XML, PDF …) is a download, and every answer carries nosniff and a
 * CSP sandbox, so a file can never run script on Herald's origin.
 */
export function createFilesRouter(deps: FilesRouterDeps): Router {
  const router = Router();
  contractRoutes(router, '')(publicRoutes.files.file, async ({ params }, _req, res) => {
    const row = isAttachmentId(params.id) ? await deps.attachments.find(params.id) : null;
    const stream = row ? await deps.attachments.open(row) : null;
    if (!row || !stream) {
      throw notFound('no such file: it expired, was removed, or the link is mistyped');
    }
    res.setHeader('Content-Type', row.inline ? row.mime : 'application/octet-stream');
    res.setHeader('Content-Length', String(row.size));
    res.setHeader(
      'Content-Disposition',
      disposition(row.inline ? 'inline' : 'attachment', row.filename),
    );
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'");
    res.setHeader('Cache-Control', 'private, max-age=3600');
    // Platforms and readers on other origins load images from here.
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });
  return router;
}
