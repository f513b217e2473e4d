import { z } from 'zod';

import { route } from '../route';

/**
 * A file sent with a message (issue 43 §2), by its unguessable id: no session, the id is the
 * credential. Answers the bytes (images inline, anything else as a download), not the envelope.
 */
export const fileRoute = route({
  method: 'get',
  path: '/api/files/{id}/{filename}',
  summary:
    'A file sent with a message, by its id (no login: the id is the secret); images inline, everything else as a download, with nosniff and a CSP sandbox',
  public: true,
  // Any text: an id that cannot be one is the same 404 as an unknown or expired one.
  params: z.object({ id: z.string(), filename: z.string() }),
  answers: 'attachment',
  refusals: { 404: 'no such file: unknown id, expired, or removed with its send' },
});
