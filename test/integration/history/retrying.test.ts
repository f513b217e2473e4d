import { createServer } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, textInstances, type TestHerald } from '../../helpers/herald';

/** A loopback port nothing listens on: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Issue 41 §3: a webhook refusing connections must not look healthy while its retries run. The
 * send log names such a send `retrying` with its error, the dashboard counts it against the
 * success rate and lists it with the failures, and the channel reads as failing.
 */
// In order: the first three read the one waiting send the setup made; the last sends more.
describe('a channel failing and waiting to retry', { shuffle: false }, () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let deadId: number;
  let flakyId: number;
  let hostedId: number;
  let sendId: number;

  beforeAll(async () => {
    // A minute before the next attempt: long enough to look at the send while it waits.
    herald = await startTestHerald({ settings: { retry: { baseDelayMs: 60_000 } } });
    peer = await startHttpPeer();
    hostedId = (await herald.createChannel('hosted', {}, 'Team inbox')).id;
    deadId = (
      await herald.createChannel(
        'webhook',
        { url: `http://127.0.0.1:${await closedPort()}/hook` },
        'Dead webhook',
      )
    ).id;
    flakyId = (await herald.createChannel('webhook', { url: `${peer.url}/hook` }, 'Flaky')).id;
    const { token } = await herald.createTemplate(
      { text: 'disk full' },
      textInstances([hostedId, deadId]),
    );
    await herald.sendV2({ token, title: 'refused' });
    const page = await herald.waitFor(async () => {
      const p = await herald.console.ok('GET', '/logs');
      return p.items[0]?.status === 'retrying' ? p : null;
    });
    sendId = page.items[0].id;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  it('the send log reads retrying, with the last error, in the list and the detail', async () => {
    // Found by id: the file's tests run in a shuffled order, and others send too.
    const page = await herald.console.ok('GET', '/logs');
    const row = page.items.find((s: { id: number }) => s.id === sendId);
    expect(row).toMatchObject({
      id: sendId,
      status: 'retrying',
      sentCount: 1,
      failedCount: 0,
      lastError: expect.stringMatching(/ECONNREFUSED|refused/i),
    });
    const detail = await herald.console.ok('GET', `/logs/${sendId}`);
    expect(detail.status).toBe('retrying');
    expect(detail.lastError).toBe(row.lastError);
    const dead = detail.deliveries.find((d: { channelId: number }) => d.channelId === deadId);
    expect(dead).toMatchObject({ status: 'retrying', attempts: 1, lastError: detail.lastError });
    expect(dead.nextAttemptAt).not.toBeNull();
  });

  it('filters by retrying, and pending leaves such sends out', async () => {
    const retrying = await herald.console.ok('GET', '/logs?status=retrying');
    expect(retrying.items.map((s: { id: number }) => s.id)).toEqual([sendId]);
    const pending = await herald.console.ok('GET', '/logs?status=pending');
    expect(pending.items.map((s: { id: number }) => s.id)).not.toContain(sendId);
    expect((await herald.console.get('/logs?status=waiting')).status).toBe(400);
  });

  it('the dashboard counts it against the success rate and lists it with the failures', async () => {
    const stats = await herald.console.ok('GET', '/stats?days=7');
    // One delivery sent (the hosted one), one failed once and waiting: not 100 %.
    expect(stats.totals.successRate).toBe(0.5);
    expect(stats.retrying).toBe(1);
    expect(stats.byChannel).toContainEqual(
      expect.objectContaining({ channelId: deadId, retrying: 1, failed: 0, pending: 0 }),
    );
    expect(stats.latestFailures).toEqual([
      expect.objectContaining({
        sendId,
        title: 'refused',
        channelName: 'Dead webhook',
        status: 'retrying',
        error: expect.stringMatching(/ECONNREFUSED|refused/i),
        nextAttemptAt: expect.any(String),
      }),
    ]);
  });

  it('marks the channel failing, and a later success clears it', async () => {
    const health = await herald.console.ok('GET', '/stats/channel-health');
    expect(health).toContainEqual(
      expect.objectContaining({
        channelId: deadId,
        state: 'failing',
        failures: 1,
        lastError: expect.stringMatching(/ECONNREFUSED|refused/i),
      }),
    );
    expect(health).toContainEqual(
      expect.objectContaining({ channelId: hostedId, state: 'ok', failures: 0, lastError: null }),
    );
    // Never tried: not listed.
    expect(health.map((h: { channelId: number }) => h.channelId)).not.toContain(flakyId);

    // A platform that refuses for good (HTTP 400), twice, then accepts.
    const { token } = await herald.createTemplate({ text: 'x' }, textInstances([flakyId]));
    peer.script.push({ status: 400, body: 'bad' }, { status: 400, body: 'bad' });
    for (const title of ['first', 'second']) await herald.sendV2({ token, title });
    const failing = await herald.waitFor(async () => {
      const h = await herald.console.ok('GET', '/stats/channel-health');
      const flaky = h.find((x: { channelId: number }) => x.channelId === flakyId);
      return flaky?.failures === 2 ? flaky : null;
    });
    expect(failing).toMatchObject({ state: 'failing', lastError: expect.stringContaining('400') });
    const failedSend = (await herald.console.ok('GET', '/logs?status=failed')).items[0];
    expect(failedSend).toMatchObject({ title: 'second', status: 'failed' });
    expect(failedSend.lastError).toContain('400');

    await herald.sendV2({ token, title: 'third' });
    await herald.waitFor(async () => {
      const h = await herald.console.ok('GET', '/stats/channel-health');
      return h.find((x: { channelId: number }) => x.channelId === flakyId)?.state === 'ok';
    });
  });

  it('is a viewer route, and refused without a session', async () => {
    const { client: viewer } = await herald.signedInAs('viewer');
    expect((await viewer.get('/stats/channel-health')).status).toBe(200);
    const res = await fetch(`${herald.url}/api/console/stats/channel-health`);
    expect(res.status).toBe(401);
  });
});
