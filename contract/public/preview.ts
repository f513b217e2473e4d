import { z } from 'zod';

import { contentTypeSchema, named, timestampSchema } from '../common';
import { hostedAttachmentSchema } from '../console/messages';
import { route } from '../route';
import { fileRoute } from './files';
import { tokenKindRoute } from './token-kind';

/** A hosted message as its share link shows it. */
export const publicPreviewSchema = named(
  'PublicPreview',
  z.strictObject({
    title: z.string(),
    content: z.string(),
    format: contentTypeSchema,
    url: z.string().nullable(),
    /** The content rendered to sanitised HTML. */
    safeHtml: z.string(),
    /** The files sent with it that are still stored, as the reader lists them. */
    attachments: z.array(hostedAttachmentSchema),
    createdAt: timestampSchema,
  }),
);
export type PublicPreview = z.infer<typeof publicPreviewSchema>;

/** Outside the console: no session, and not under /api/console. */
export const publicRoutes = {
  preview: {
    preview: route({
      method: 'get',
      path: '/api/public/preview/{key}',
      summary:
        'One hosted message by its share-link key, without login (60 a minute per address; an unknown, revoked or malformed key is 404)',
      public: true,
      // Any text: a key that cannot be one is the same 404 as an unknown key.
      params: z.object({ key: z.string() }),
      response: publicPreviewSchema,
    }),
  },
  tokens: {
    kind: tokenKindRoute,
  },
  files: {
    file: fileRoute,
  },
};
