import { createHmac } from 'node:crypto';

import { SIGNING_SECRET_PREFIX, signingSecretBytes } from '../../contract/channel-kinds/webhook';

/**
 * Signed webhook deliveries after the Standard Webhooks spec (standardwebhooks.com): the
 * receiver shares a `whsec_` secret with Herald and checks `webhook-signature` to know a
 * request came from Herald, unaltered, recently (`webhook-timestamp`), and once
 * (`webhook-id` repeats on a retry of the same delivery).
 */
export {
  SIGNING_SECRET_MAX_BYTES,
  SIGNING_SECRET_MIN_BYTES,
  SIGNING_SECRET_PREFIX,
  signingSecretField,
} from '../../contract/channel-kinds/webhook';

/** The HMAC key of a well-formed secret, or null: the base64 after `whsec_`, decoded. */
export function signingKey(secret: string): Buffer | null {
  return signingSecretBytes(secret) === null
    ? null
    : Buffer.from(secret.slice(SIGNING_SECRET_PREFIX.length), 'base64');
}

/**
 * The `webhook-id` of a delivery: the same for every attempt of it, and different for every
 * other delivery of this install and of any other (the install id), so a receiver can drop
 * repeats of Herald's at-least-once delivery. Test sends (negative ids) are marked as such.
 */
export function webhookMessageId(installId: string, deliveryId: number): string {
  return deliveryId > 0
    ? `msg_${installId}_${deliveryId}`
    : `msg_${installId}_test${Math.abs(deliveryId)}`;
}

export interface SignatureInput {
  secret: string;
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  /** The exact body sent ('' for none). */
  body: string;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the decoded secret. */
export function webhookSignature(input: SignatureInput): string {
  const key = signingKey(input.secret);
  if (!key) throw new Error('signingSecret is not a whsec_ secret');
  const mac = createHmac('sha256', key)
    .update(`${input.id}.${input.timestamp}.${input.body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers for one attempt. */
export function signatureHeaders(input: SignatureInput): Record<string, string> {
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': webhookSignature(input),
  };
}
