import type { TokenKindName } from '../../../contract';
import { TokenError, type TokenCodec } from '../../crypto/tokens';
import { AppError } from '../../lib/errors';

/**
 * The kind a token's authenticated bytes carry, for `POST /api/public/token-kind`: a client
 * holding only a token (`herald send`) learns which send API takes it. Nothing more is read:
 * whether the task or template exists, is enabled or was rotated stays the send's answer, so
 * this tells no more than a send with the token would.
 */
export function tokenKindOf(codec: TokenCodec, token: string): TokenKindName {
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
