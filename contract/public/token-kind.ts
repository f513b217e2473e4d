import { z } from 'zod';

import { named } from '../common';
import { route } from '../route';

/** What a token opens: a task (send it through V1) or a template (V2). */
export const TOKEN_KINDS = ['task', 'template'] as const;
export const tokenKindSchema = named('TokenKind', z.enum(TOKEN_KINDS));
export type TokenKindName = z.infer<typeof tokenKindSchema>;

/**
 * POST /api/public/token-kind: which send API a token belongs to, for clients that hold a
 * token and no more (`herald send`). It answers only the kind the token's authenticated bytes
 * carry: whether its task or template still exists, is enabled or was rotated is the send's
 * answer, as before.
 */
export const tokenKindRoute = route({
  method: 'post',
  path: '/api/public/token-kind',
  summary:
    'Whether a token is a task token (send it to V1) or a template token (V2); 400 when it is neither',
  public: true,
  body: z.strictObject({ token: z.string().min(1).max(1000) }),
  response: z.strictObject({ kind: tokenKindSchema }),
  refusals: {
    400: 'The body is not {token}, or the token is no Herald token (malformed, forged, of another server key)',
    403: 'A cross-site browser request',
    421: 'A Host Herald does not answer to',
  },
});
