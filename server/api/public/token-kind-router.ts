import express, { Router } from 'express';

import { publicRoutes, type TokenKindName } from '../../../contract';
import { TokenError, type TokenCodec } from '../../crypto/tokens';
import { AppError } from '../../lib/errors';
import type { HeraldParts } from '../../parts';
import { contractRoutes } from '../contract-route';

export type TokenKindRouterDeps = Pick<HeraldParts, 'tokens'>;

/**
 * The kind a token's authenticated bytes carry: a client holding only a token (`herald send`)
 * learns which send API takes it. Nothing more is read: whether the task or template exists,
 * is enabled or was rotated stays the send's answer, so this tells no more than a send with
 * the token would.
 */
function tokenKindOf(codec: TokenCodec, token: string): TokenKindName {
  let reason = '';
  for (const kind of ['template', 'task'] as const) {
    try {
      codec.decode(token, kind);
      return kind;
    } catch (err) {
      if (!(err instanceof TokenError)) throw err;
      reason ||= err.message;
    }
  }
  throw new AppError(400, `token: not a Herald token: ${reason}`);
}

/**
 * POST /api/public/token-kind: whether a token is a task's or a template's (contract/public).
 * No session, like the send APIs; the Host allow-list and the cross-site guard in front of
 * /api/public apply (app.ts). The body is read as JSON whatever its Content-Type, as the send
 * APIs read theirs.
 */
export function createTokenKindRouter(deps: TokenKindRouterDeps): Router {
  const router = Router();
  const spec = publicRoutes.tokens.kind;
  router.post(spec.path, express.json({ limit: '16kb', type: () => true, strict: true }));
  contractRoutes(router, '')(spec, ({ body }) => ({ kind: tokenKindOf(deps.tokens, body.token) }));
  return router;
}
