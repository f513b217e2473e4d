import { describe, expect, it } from 'vitest';

import {
  standardWebhooksKey,
  verifyHookSignature,
} from '../../../../../server/features/hooks/hook-signature';

/*
 * Known answers from each scheme's own documentation: GitHub's "Validating webhook deliveries"
 * (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries) and the
 * Standard Webhooks spec's example (https://github.com/standard-webhooks/standard-webhooks).
 */
const GITHUB = {
  secret: "It's a Secret to Everybody",
  body: Buffer.from('Hello, World!'),
  signature: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
};
const STANDARD = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  body: Buffer.from('{"test": 2432232314}'),
  headers: {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  },
  nowMs: 1614265330_000,
};

const verify = (opts: Partial<Parameters<typeof verifyHookSignature>[0]>) => () =>
  verifyHookSignature({
    schemes: ['standard', 'hub'],
    secret: GITHUB.secret,
    rawBody: GITHUB.body,
    headers: {},
    nowMs: STANDARD.nowMs,
    ...opts,
  });

describe('verifyHookSignature()', () => {
  it('accepts GitHub’s documented X-Hub-Signature-256, in either case of hex', () => {
    expect(verify({ headers: { 'x-hub-signature-256': GITHUB.signature } })).not.toThrow();
    const upper = `sha256=${GITHUB.signature.slice(7).toUpperCase()}`;
    expect(verify({ headers: { 'x-hub-signature-256': upper } })).not.toThrow();
  });

  it('refuses a wrong, short or unprefixed X-Hub-Signature-256 with 401', () => {
    for (const header of [
      GITHUB.signature.replace(/7$/, '8'),
      'sha256=abcd',
      GITHUB.signature.slice(7),
      'sha1=0123',
    ]) {
      expect(verify({ headers: { 'x-hub-signature-256': header } }), header).toThrow(
        expect.objectContaining({ code: 401 }),
      );
    }
    expect(verify({ headers: {} })).toThrow(/signature required/);
  });

  it('accepts the Standard Webhooks example, among several listed signatures', () => {
    const base = { secret: STANDARD.secret, rawBody: STANDARD.body };
    expect(verify({ ...base, headers: STANDARD.headers })).not.toThrow();
    const rotated = {
      ...STANDARD.headers,
      'webhook-signature': `v1,bm90IHRoaXMgb25l ${STANDARD.headers['webhook-signature']}`,
    };
    expect(verify({ ...base, headers: rotated })).not.toThrow();
    // Without the whsec_ prefix the key is the same base64.
    expect(standardWebhooksKey('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toEqual(
      standardWebhooksKey(STANDARD.secret),
    );
  });

  it('refuses a Standard Webhooks request off by more than 5 minutes, or with another id', () => {
    const base = { secret: STANDARD.secret, rawBody: STANDARD.body, headers: STANDARD.headers };
    expect(verify({ ...base, nowMs: STANDARD.nowMs + 300_000 })).not.toThrow();
    expect(verify({ ...base, nowMs: STANDARD.nowMs + 301_000 })).toThrow(/5 minutes/);
    expect(verify({ ...base, nowMs: STANDARD.nowMs - 301_000 })).toThrow(/5 minutes/);
    expect(
      verify({ ...base, headers: { ...STANDARD.headers, 'webhook-id': 'msg_other' } }),
    ).toThrow(/does not match/);
    expect(
      verify({ ...base, headers: { ...STANDARD.headers, 'webhook-timestamp': 'soon' } }),
    ).toThrow(/incomplete/);
  });

  it('checks only the schemes the preset accepts', () => {
    const base = { secret: STANDARD.secret, rawBody: STANDARD.body, headers: STANDARD.headers };
    expect(verify({ ...base, schemes: ['hub'] })).toThrow(/X-Hub-Signature-256$/);
  });
});
