import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { webhookConfigSchema } from '../../../../server/channels/webhook';
import {
  signatureHeaders,
  signingKey,
  webhookMessageId,
  webhookSignature,
} from '../../../../server/channels/webhook-signing';

// The test vector of the Standard Webhooks reference libraries.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;

describe('webhook signing (Standard Webhooks)', () => {
  it('webhookSignature() reproduces the reference test vector', () => {
    expect(webhookSignature(VECTOR)).toBe(VECTOR.signature);
  });

  it('webhookSignature() changes with any of id, timestamp, body or secret', () => {
    const variants = [
      { ...VECTOR, id: 'msg_other' },
      { ...VECTOR, timestamp: VECTOR.timestamp + 1 },
      { ...VECTOR, body: '{"test": 2432232315}' },
      { ...VECTOR, secret: secretOf(32) },
    ];
    for (const v of variants) expect(webhookSignature(v)).not.toBe(VECTOR.signature);
  });

  it('signatureHeaders() carries the three headers with the timestamp in seconds', () => {
    expect(signatureHeaders(VECTOR)).toEqual({
      'webhook-id': VECTOR.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': VECTOR.signature,
    });
  });

  it('signingKey() accepts whsec_ + base64 of 24 to 64 bytes and nothing else', () => {
    for (const n of [24, 32, 64]) expect(signingKey(secretOf(n))?.length).toBe(n);
    for (const bad of [
      randomBytes(32).toString('base64'),
      secretOf(16),
      secretOf(65),
      'whsec_not base64!',
      `whsec_${randomBytes(32).toString('base64url')}-`,
      'whsec_',
    ])
      expect(signingKey(bad)).toBeNull();
  });

  it('webhookConfigSchema refuses a malformed signingSecret with what to do, and takes "" as none', () => {
    const base = { url: 'https://example.com/hook' };
    const bad = webhookConfigSchema.safeParse({ ...base, signingSecret: 'hunter2' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toMatch(
      /^signingSecret must be "whsec_" followed by the base64 of 24 to 64 random bytes/,
    );
    const none = webhookConfigSchema.parse({ ...base, signingSecret: '' });
    expect(none.signingSecret).toBeUndefined();
    expect(webhookConfigSchema.parse({ ...base, signingSecret: VECTOR.secret }).signingSecret).toBe(
      VECTOR.secret,
    );
  });

  it('webhookMessageId() is stable per delivery and distinct across deliveries and installs', () => {
    expect(webhookMessageId('abc', 42)).toBe(webhookMessageId('abc', 42));
    const ids = new Set([
      webhookMessageId('abc', 42),
      webhookMessageId('abc', 43),
      webhookMessageId('xyz', 42),
      webhookMessageId('abc', -42),
    ]);
    expect(ids.size).toBe(4);
  });
});
