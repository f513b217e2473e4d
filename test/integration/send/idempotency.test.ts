import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import {
  pruneIdempotencyKeys,
  withIdempotency,
  type IdempotencyDeps,
} from '../../../server/features/sending/idempotency';
import type { SendResponse } from '../../../server/features/sending/send-service';
import { IdempotencyKey, Send } from '../../../server/db/models';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

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

  it('`sendV2()` counts the rate limit before it checks the Idempotency-Key: a malformed key uses a slot', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: webhookId, contentType: 'text' },
    ]);
    await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 1 });
    try {
      const bad = await herald.sendV2(
        { token, title: 't' },
        { 'Idempotency-Key': 'k'.repeat(300) },
      );
      expect(bad.body.msg).toMatch(/^Idempotency-Key:/);
      const next = await herald.sendV2({ token, title: 't' });
      expect(next.body).toEqual({
        code: 429,
        msg: 'rate limit: at most 1 sends a minute per template',
        data: null,
      });
    } finally {
      await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 0 });
    }
  });

  it('withIdempotency() never replays a row keyed by the endpoint alone, as versions before scoping stored them', async () => {
    const mine = await herald.createTemplate({ text: 'mine' }, [
      { channelId: webhookId, contentType: 'text' },
    ]);
    // As a version before keys named the credential stored it: the endpoint alone as the
    // scope. Such rows lived 24 hours; none can be left by now, and one that were is no answer.
    const earlier = { code: 200, msg: 'success', data: { token: mine.token, count: 1 } };
    await herald.server.ctx.writeLock.run(() =>
      IdempotencyKey.create({
        scope: 'v2',
        key: 'before-scoping',
        response: { code: 200, body: earlier },
      }),
    );

    const sent = await herald.sendV2(
      { token: mine.token, title: 'after scoping' },
      { 'Idempotency-Key': 'before-scoping' },
    );

    expect(sent.body.code).toBe(200);
    // Sent, not replayed: the stored answer was no answer to this caller.
    expect(await Send.count({ where: { title: 'after scoping' } })).toBe(1);
  });

  describe('withIdempotency() on its own, against the same database', () => {
    const HOUR = 60 * 60 * 1000;
    const depsAt = (now: number) =>
      ({
        clock: { now: () => now },
        writeLock: { run: <T>(fn: () => Promise<T>) => fn() },
      }) as unknown as IdempotencyDeps;
    const ok: SendResponse = { code: 200, msg: 'success', data: { n: 1 } };

    it('takes keys of 1 to 255 characters', async () => {
      const deps = depsAt(Date.now());
      await expect(withIdempotency(deps, 'unit', '', async () => ok)).rejects.toMatchObject({
        code: 400,
        message: 'Idempotency-Key: must be 1 to 255 characters',
      });
      expect(await withIdempotency(deps, 'unit', 'k'.repeat(255), async () => ok)).toEqual(ok);
    });

    it('answers a repeat 409 when the first request with its key failed meanwhile', async () => {
      const deps = depsAt(Date.now());
      let fail!: (err: Error) => void;
      const first = withIdempotency(
        deps,
        'unit',
        'first-fails',
        () => new Promise<SendResponse>((_resolve, reject) => (fail = reject)),
      );
      await vi.waitFor(() => expect(fail).toBeTypeOf('function'));
      const looks = vi.spyOn(IdempotencyKey, 'findOne');
      const repeat = withIdempotency(deps, 'unit', 'first-fails', async () => ok);
      // The repeat found the key taken and waits for the first answer.
      await vi.waitFor(() => expect(looks).toHaveBeenCalled());
      fail(new Error('refused'));
      await expect(first).rejects.toThrow('refused');
      await expect(repeat).rejects.toMatchObject({
        code: 409,
        message:
          'Idempotency-Key: the first request with this key failed; send again with a new key',
      });
      looks.mockRestore();
    });

    it('prunes keys only once they are 24 hours old', async () => {
      const now = Date.now();
      await withIdempotency(depsAt(now), 'unit', 'prune-me', async () => ok);
      expect(await pruneIdempotencyKeys(depsAt(now + 23 * HOUR))).toBe(0);
      expect(await IdempotencyKey.count({ where: { key: 'prune-me' } })).toBe(1);
      expect(await pruneIdempotencyKeys(depsAt(now + 25 * HOUR))).toBeGreaterThanOrEqual(1);
      expect(await IdempotencyKey.count({ where: { key: 'prune-me' } })).toBe(0);
    });
  });
});
