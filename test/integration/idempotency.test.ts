import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Send } from '../../server/db/models';
import { startHttpPeer, type HttpPeer } from '../helpers/http-peer';
import { startTestHerald, type TestHerald } from '../helpers/herald';

describe('Idempotency-Key', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let webhookId: number;

  beforeAll(async () => {
    herald = await startTestHerald();
    peer = await startHttpPeer();
    webhookId = (await herald.createChannel('webhook', { url: `${peer.url}/idem` })).id;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  it('withIdempotency() returns the first answer and sends nothing twice (V2)', async () => {
    const { token } = await herald.createTemplate({ text: 'once' }, [
      { channelId: webhookId, contentType: 'text' },
    ]);
    const headers = { 'Idempotency-Key': 'v2-key-1' };
    const first = await herald.sendV2({ token, title: 'idem v2' }, headers);
    const second = await herald.sendV2({ token, title: 'idem v2' }, headers);
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    await peer.waitForRequests(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(
      peer.received.filter((r) => (r.json as { title: string }).title === 'idem v2'),
    ).toHaveLength(1);
    expect(await Send.count({ where: { title: 'idem v2' } })).toBe(1);
  });

  it('withIdempotency() handles concurrent repeats of one key as one send (V1)', async () => {
    const { token } = await herald.createTask('idem-task', [
      { channelId: webhookId, contentType: 'text' },
    ]);
    const headers = { 'Idempotency-Key': 'v1-concurrent' };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        herald.sendV1({ token, title: 'idem v1', text: 'x' }, headers),
      ),
    );
    for (const a of answers) expect(a.body).toEqual(answers[0].body);
    expect(answers[0].body.data.status).toBe('sent');
    expect(await Send.count({ where: { title: 'idem v1' } })).toBe(1);
  });

  it('withIdempotency() scopes keys per endpoint and frees a key whose request was refused', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: webhookId, contentType: 'text' },
    ]);
    const headers = { 'Idempotency-Key': 'shared-key' };
    const refused = await herald.sendV2({ token, title: '' }, headers);
    expect(refused.status).toBe(400);
    const accepted = await herald.sendV2({ token, title: 'after refusal' }, headers);
    expect(accepted.body.code).toBe(200);
    const task = await herald.createTask('idem-scope', [
      { channelId: webhookId, contentType: 'text' },
    ]);
    const v1 = await herald.sendV1(
      { token: task.token, title: 'other endpoint', text: 'x' },
      headers,
    );
    expect(v1.body.data.status).toBe('sent');
  });

  it('withIdempotency() refuses an over-long key', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: webhookId, contentType: 'text' },
    ]);
    const res = await herald.sendV2({ token, title: 't' }, { 'Idempotency-Key': 'k'.repeat(300) });
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/^Idempotency-Key:/);
  });
});
