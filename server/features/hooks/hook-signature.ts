import { createHmac, timingSafeEqual } from 'node:crypto';

import { AppError } from '../../lib/errors';
import type { HookHeaders } from './hook-preset';

/**
 * How a sender may sign a hook's body (docs/hooks.md, "Signatures"):
 * - `hub`: GitHub's `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`, keyed
 *   with the secret's UTF-8 bytes;
 * - `standard`: Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`,
 *   `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
 *   keyed with the secret base64-decoded (a `whsec_` prefix dropped first), as the spec's
 *   libraries read it.
 */
export type SignatureScheme = 'hub' | 'standard';

/** Standard Webhooks' tolerance: a timestamp further from Herald's clock is a replay. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

const DIGEST_BYTES = 32;

const hmac = (key: Buffer | string, ...parts: Buffer[]) => {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

/**
 * Compares a digest a sender claimed with the expected one in constant time. A claim of the
 * wrong length is compared with zeros instead, so a malformed header costs the same as a wrong
 * one and tells nothing about where it went wrong.
 */
function sameDigest(expected: Buffer, claimed: Buffer): boolean {
  const equalLength = claimed.length === DIGEST_BYTES;
  const candidate = equalLength ? claimed : Buffer.alloc(DIGEST_BYTES);
  return timingSafeEqual(expected, candidate) && equalLength;
}

function verifyHub(secret: string, rawBody: Buffer, header: string): void {
  const expected = hmac(secret, rawBody);
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  const claimed = match ? Buffer.from(match[1], 'hex') : Buffer.alloc(0);
  if (!sameDigest(expected, claimed)) {
    throw new AppError(
      401,
      "signature does not match: X-Hub-Signature-256 must be sha256= and the hex HMAC-SHA256 of the raw body, keyed with the template's hook secret",
    );
  }
}

/** The key Standard Webhooks signs with: the secret's base64 body, `whsec_` dropped. */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret,
    'base64',
  );
}

function verifyStandard(
  secret: string,
  rawBody: Buffer,
  headers: HookHeaders,
  nowMs: number,
): string {
  const id = headers['webhook-id'] ?? '';
  const timestamp = (headers['webhook-timestamp'] ?? '').trim();
  const signatures = headers['webhook-signature'] ?? '';
  if (!id || !/^\d{1,12}$/.test(timestamp)) {
    throw new AppError(
      401,
      'signature incomplete: Standard Webhooks needs webhook-id, webhook-timestamp (Unix seconds) and webhook-signature',
    );
  }
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) {
    throw new AppError(
      401,
      "webhook-timestamp is more than 5 minutes from Herald's clock: a replayed request, or the sender's clock is wrong",
    );
  }
  const expected = hmac(
    standardWebhooksKey(secret),
    Buffer.from(`${id}.${timestamp}.`, 'utf8'),
    rawBody,
  );
  // Every listed signature is compared (a sender rotating its key lists the old and the new).
  let matched = false;
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    const claimed = version === 'v1' && value ? Buffer.from(value, 'base64') : Buffer.alloc(0);
    if (sameDigest(expected, claimed)) matched = true;
  }
  if (!matched) {
    throw new AppError(
      401,
      'signature does not match: webhook-signature must hold v1, and the base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body", keyed with the hook secret',
    );
  }
  return id;
}

/** What a verified signature vouches for besides the body. */
export interface VerifiedSignature {
  /**
   * The delivery id the signature covers: Standard Webhooks signs `webhook-id` with the body
   * and timestamp, so it is the delivery's key and no unsigned header may replace it.
   * X-Hub-Signature-256 signs the body alone: GitHub's X-GitHub-Delivery is not covered, and
   * this is undefined.
   */
  signedId: string | undefined;
}

/**
 * Checks a hook's signature against the template's secret; throws 401 when it is missing or
 * wrong. A request with Standard Webhooks headers is checked by them, else by
 * X-Hub-Signature-256, each only where the preset accepts it.
 */
export function verifyHookSignature(opts: {
  schemes: readonly SignatureScheme[];
  secret: string;
  rawBody: Buffer;
  headers: HookHeaders;
  nowMs: number;
}): VerifiedSignature {
  const { schemes, secret, rawBody, headers, nowMs } = opts;
  if (schemes.includes('standard') && headers['webhook-signature'] !== undefined) {
    return { signedId: verifyStandard(secret, rawBody, headers, nowMs) };
  }
  const hub = headers['x-hub-signature-256'];
  if (schemes.includes('hub') && hub !== undefined) {
    verifyHub(secret, rawBody, hub);
    return { signedId: undefined };
  }
  const wanted = schemes.includes('standard')
    ? 'Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) or X-Hub-Signature-256'
    : 'X-Hub-Signature-256';
  throw new AppError(
    401,
    `signature required: the template has a hook secret, so the body must be signed with ${wanted}`,
  );
}
