import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startHttpPeer, type HttpPeer, type ReceivedRequest } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

const TOLERANCE_S = 5 * 60;

/** What a receiver does with a delivery: the check docs/security.md tells receivers to run. */
function verify(secret: string, req: ReceivedRequest): { id: string; timestamp: number } {
  const id = req.headers['webhook-id'];
  const timestamp = req.headers['webhook-timestamp'];
  const signatures = req.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string')
    throw new Error('missing Standard Webhooks headers');
  const ts = Number(timestamp);
  if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > TOLERANCE_S)
    throw new Error(`timestamp ${timestamp} outside the tolerance`);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${req.body}`).digest();
  const valid = signatures.split(' ').some((entry) => {
    const [version, sig] = entry.split(',');
    const given = Buffer.from(sig ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!valid) throw new Error('no matching signature');
  return { id, timestamp: ts };
}

describe('signed webhook deliveries against a verifying receiver', () => {
  let herald: TestHerald;
  let receiver: HttpPeer;
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  beforeAll(async () => {
    herald = await startTestHerald();
    receiver = await startHttpPeer();
  });
  afterAll(async () => {
    await herald.close(true);
    await receiver.close();
  });

  it('every attempt verifies, and a retry carries the same webhook-id', async () => {
    const ch = await herald.createChannel('webhook', { url: receiver.url, signingSecret: secret });
    expect(ch.config.signingSecret).toBe('******');
    const { token } = await herald.createTemplate(
      { text: 'signed {{n}}', placeholders: [{ key: 'n', label: 'N' }] },
      [{ channelId: ch.id, contentType: 'text' }],
    );
    // The receiver is shared with the other tests: only requests from here on are this test's.
    const before = receiver.received.length;
    receiver.script.push({ status: 500, body: 'try again' });
    expect(
      (await herald.sendV2({ token, title: 'signed', placeholders: { n: '1' } })).body.code,
    ).toBe(200);
    const [first, retry] = (await receiver.waitForRequests(before + 2)).slice(before);
    const a = verify(secret, first!);
    const b = verify(secret, retry!);
    expect(a.id).toMatch(/^msg_[A-Za-z0-9_-]+$/);
    expect(b.id).toBe(a.id);
    expect(JSON.parse(retry!.body)).toMatchObject({ content: 'signed 1' });

    // Another delivery gets another id; a tampered body fails the receiver's check.
    await herald.sendV2({ token, title: 'signed', placeholders: { n: '2' } });
    const [, , next] = (await receiver.waitForRequests(before + 3)).slice(before);
    expect(verify(secret, next!).id).not.toBe(a.id);
    expect(() => verify(secret, { ...next!, body: next!.body.replace('2', '3') })).toThrow(
      'no matching signature',
    );
    expect(() => verify(`whsec_${randomBytes(32).toString('base64')}`, next!)).toThrow(
      'no matching signature',
    );
  });

  it('the console test send is signed too', async () => {
    const ch = await herald.createChannel('webhook', { url: receiver.url, signingSecret: secret });
    const before = receiver.received.length;
    expect((await herald.console.ok('POST', `/channels/${ch.id}/test`, {})).ok).toBe(true);
    const req = receiver.received[before]!;
    expect(verify(secret, req).id).toMatch(/^msg_.+_test\d+$/);
  });

  it('without signingSecret nothing is signed', async () => {
    const ch = await herald.createChannel('webhook', { url: receiver.url });
    const before = receiver.received.length;
    await herald.console.ok('POST', `/channels/${ch.id}/test`, {});
    expect(receiver.received[before]!.headers['webhook-signature']).toBeUndefined();
  });

  it('a malformed signingSecret is refused with 400 and says what to enter', async () => {
    const res = await herald.console.post('/channels', {
      name: 'bad secret',
      type: 'webhook',
      config: { url: receiver.url, signingSecret: 'my-password' },
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/signingSecret must be "whsec_" followed by the base64/);
  });
});
