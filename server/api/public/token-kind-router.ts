import express, { Router } from 'express';

import { publicRoutes } from '../../../contract';
import type { HeraldParts } from '../../parts';
import { tokenKindOf } from '../../features/sending/token-kind';
import { contractRoutes } from '../contract-route';

export type TokenKindRouterDeps = Pick<HeraldParts, 'tokens'>;

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
