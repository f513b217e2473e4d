import { Op, UniqueConstraintError } from 'sequelize';

import { idempotencyHeaders, LIMITS } from '../../../contract';
import { IdempotencyKey } from '../../db/models';
import { AppError } from '../../lib/errors';
import { parseInput } from '../../lib/validation';
import type { HeraldParts } from '../../parts';
import type { SendResponse } from './send-service';

/** What the idempotency store uses: keys are written through the writer and expire by the clock. */
export type IdempotencyDeps = Pick<HeraldParts, 'clock' | 'writeLock'>;

const WAIT_FOR_FIRST_MS = 60_000;
const POLL_MS = 100;

/**
 * Runs a send at most once per Idempotency-Key, endpoint and credential within 24 hours: a
 * repeat gets the first answer and sends nothing. The scope names the credential (`v2:token:5.0`),
 * so the same key from another caller is another send and never sees this caller's answer.
 * Only answers that accepted a send are kept; a request refused for bad input frees its key, so
 * the caller can fix the request and reuse it.
 */
export async function withIdempotency(
  deps: IdempotencyDeps,
  scope: string,
  key: string | undefined,
  run: () => Promise<SendResponse>,
): Promise<SendResponse> {
  if (key === undefined) return run();
  // Checked here, after the credential: a request with a bad token is refused for that first.
  parseInput(idempotencyHeaders, { 'Idempotency-Key': key });
  const cutoff = new Date(deps.clock.now() - LIMITS.idempotencyTtlMs);
  let row: IdempotencyKey | null = null;
  try {
    row = await deps.writeLock.run(async () => {
      await IdempotencyKey.destroy({ where: { scope, key, createdAt: { [Op.lt]: cutoff } } });
      return IdempotencyKey.create({ scope, key, response: null });
    });
  } catch (err) {
    if (!(err instanceof UniqueConstraintError)) throw err;
  }
  if (!row) return replay(scope, key);
  try {
    const response = await run();
    await deps.writeLock.run(() =>
      row.update({ response: { code: response.code, body: response } }),
    );
    return response;
  } catch (err) {
    // Nothing was accepted: free the key.
    await deps.writeLock.run(() => row.destroy()).catch(() => undefined);
    throw err;
  }
}

async function replay(scope: string, key: string): Promise<SendResponse> {
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const existing = await IdempotencyKey.findOne({ where: { scope, key } });
    if (existing?.response) return existing.response.body as SendResponse;
    if (!existing) {
      throw new AppError(
        409,
        'Idempotency-Key: the first request with this key failed; send again with a new key',
      );
    }
    if (Date.now() > deadline) {
      throw new AppError(
        409,
        'Idempotency-Key: the first request with this key is still being processed',
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Housekeeping: forgets keys older than 24 hours. */
export async function pruneIdempotencyKeys(deps: IdempotencyDeps): Promise<number> {
  const cutoff = new Date(deps.clock.now() - LIMITS.idempotencyTtlMs);
  return deps.writeLock.run(() =>
    IdempotencyKey.destroy({ where: { createdAt: { [Op.lt]: cutoff } } }),
  );
}
