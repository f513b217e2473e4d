import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { invalidateConfigCache } from '../../../server/db/config-version';
import type { DeliveryThread } from '../../../server/queue/delivery-thread/delivery-thread';
import { startTestHerald, type TestHerald, type TestHeraldOptions } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { onPostgres } from '../../helpers/test-database';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

// The thread starts from server/workers/delivery-worker.ts (through tsx, as in any run from the
// sources); HERALD_DELIVERY_WORKER_FILE names a broken one where a test wants it to fail.
describe.skipIf(onPostgres())('the delivery thread (SQLite)', () => {
  let herald: TestHerald | null = null;
  const peers: HttpPeer[] = [];

  afterEach(async () => {
    await herald?.close(true);
    herald = null;
    for (const p of peers.splice(0)) await p.close();
    vi.unstubAllEnvs();
  });

  const open = async (
    mode: 'on' | 'auto' | 'off',
    env: Record<string, string> = {},
    options: TestHeraldOptions = {},
  ) => {
    vi.stubEnv('HERALD_DELIVERY_THREAD', mode);
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
    herald = await startTestHerald(options);
    return herald;
  };
  const peer = async (...args: Parameters<typeof startHttpPeer>) => {
    const p = await startHttpPeer(...args);
    peers.push(p);
    return p;
  };
  /** A template sending to one webhook channel per URL; its token and the channels. */
  const hookTemplate = async (h: TestHerald, ...urls: string[]) => {
    const hooks = [];
    for (const url of urls) hooks.push(await h.createChannel('webhook', { url }));
    const { token } = await h.createTemplate(
      { text: 'body' },
      hooks.map((c) => ({ channelId: c.id, contentType: 'text' as const })),
    );
    return { token, hooks };
  };
  const thread = (h: TestHerald) => h.server.ctx.deliveryThread as DeliveryThread;
  const titlesAt = (p: HttpPeer, path: string) =>
    p.received.filter((r) => r.url === path).map((r) => (r.json as any).title as string);
  const until = async (what: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
    const end = Date.now() + timeoutMs;
    while (!(await what())) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  /** Herald's log lines at `level` and above (written through console.error), kept here. */
  const captureLog = (level: 'warn' | 'error') => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => {
      lines.push(String(line));
    });
    vi.stubEnv('HERALD_LOG', level);
    return { lines, restore: () => spy.mockRestore() };
  };

  it('on: the thread delivers every send once, and its events and outcomes reach the main thread', async () => {
    const h = await open('on');
    const t = thread(h);
    expect(t.running).toBe(true);
    expect(h.server.ctx.dispatcher.handedOver).toBe(true);
    const p = await peer();
    const { token } = await hookTemplate(h, `${p.url}/a`, `${p.url}/b`);
    const delivered: number[] = [];
    h.server.events.on('delivery', (e) => e.status === 'sent' && delivered.push(e.id));
    const sends = await Promise.all(
      Array.from({ length: 40 }, (_, i) => h.sendV2({ token, title: `t${i}` })),
    );
    expect(sends.every((s) => s.status === 200)).toBe(true);
    await p.waitForRequests(80);
    const expected = Array.from({ length: 40 }, (_, i) => `t${i}`).sort();
    expect(titlesAt(p, '/a').sort()).toEqual(expected);
    expect(titlesAt(p, '/b').sort()).toEqual(expected);
    // The thread's 'delivery' events are emitted on the main thread's HeraldEvents.
    await until(() => delivered.length === 80);
    expect(new Set(delivered).size).toBe(80);
    const { items } = await h.console.ok('GET', '/logs?q=t1');
    expect(items.length).toBeGreaterThan(0);
    await until(async () => {
      const log = await h.console.ok('GET', `/logs/${items[0].id}`);
      return log.deliveries.every((d: any) => d.status === 'sent');
    });
    // Nothing was claimed on the main thread.
    expect(t.starts).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(p.received).toHaveLength(80);
  });

  it('on: a V1 caller waiting here gets the attempt the thread recorded, failure text included', async () => {
    const h = await open('on');
    const ok = await peer();
    const refusing = await peer({ status: 404, body: 'no such hook' });
    const good = await h.createChannel('webhook', { url: `${ok.url}/ok` });
    const bad = await h.createChannel('webhook', { url: `${refusing.url}/gone` });
    const { token } = await h.createTask('v1 on the thread', [
      { channelId: good.id, contentType: 'text' },
      { channelId: bad.id, contentType: 'text' },
    ]);
    const res = await h.sendV1({ token, title: 'v1 thread', text: 'x' });
    expect(res.body.data.status).toBe('partial');
    const results = res.body.data.results as Array<{
      channelId: number;
      status: string;
      error: string | null;
    }>;
    expect(results.find((r) => r.channelId === good.id)?.status).toBe('sent');
    const failed = results.find((r) => r.channelId === bad.id)!;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/404/);
    expect(thread(h).running).toBe(true);
  });

  it('on: pausing deliveries pauses the thread; resuming sends what waited', async () => {
    const h = await open('on');
    const p = await peer();
    const { token } = await hookTemplate(h, `${p.url}/p`);
    h.server.deliveries.pause();
    await h.sendV2({ token, title: 'held' });
    await new Promise((r) => setTimeout(r, 500));
    expect(p.received).toHaveLength(0);
    h.server.deliveries.resume();
    await p.waitForRequests(1);
    expect(titlesAt(p, '/p')).toEqual(['held']);
  });

  it('on: a channel edited on the main thread is delivered to its new address by the thread', async () => {
    const h = await open('on');
    const before = await peer();
    const after = await peer();
    const {
      token,
      hooks: [hook],
    } = await hookTemplate(h, `${before.url}/x`);
    await h.sendV2({ token, title: 'first' });
    await before.waitForRequests(1);
    await h.console.ok('PUT', `/channels/${hook.id}`, {
      name: hook.name,
      config: { url: `${after.url}/y` },
    });
    // The edit is announced before its commit; the thread reads the channel again after it.
    await new Promise((r) => setTimeout(r, 1_200));
    await h.sendV2({ token, title: 'second' });
    await after.waitForRequests(1);
    expect(titlesAt(after, '/y')).toEqual(['second']);
    expect(before.received).toHaveLength(1);
  });

  it('a thread that ends unexpectedly hands claiming back: later sends go out from the main thread', async () => {
    const h = await open('on');
    const { lines: errors, restore } = captureLog('error');
    const p = await peer();
    const { token } = await hookTemplate(h, `${p.url}/c`);
    let recorded = 0;
    h.server.events.on('delivery', (e) => e.status === 'sent' && (recorded += 1));
    await h.sendV2({ token, title: 'before' });
    await p.waitForRequests(1);
    // Recorded, so the thread holds no claim when it dies (that case is the next test's).
    await until(() => recorded === 1);
    await thread(h).crashForTest();
    await until(() => !h.server.ctx.dispatcher.handedOver);
    restore();
    expect(errors.join('\n')).toMatch(/the delivery thread stopped/);
    expect(thread(h).running).toBe(false);
    // The main thread's writes are not left waiting for the ended thread's write turn.
    await h.sendV2({ token, title: 'after' });
    await p.waitForRequests(2);
    expect(titlesAt(p, '/c')).toEqual(['before', 'after']);
  });

  it('a thread that dies mid-attempt: its claim is queued again at once (not when the 5-minute lease runs out) and the main thread delivers it', async () => {
    const h = await open('on');
    const { lines: warnings, restore } = captureLog('warn');
    // The thread's attempt is still waiting for this answer when the thread dies.
    const slow = await peer({ status: 200, body: '{}', delayMs: 1_500 });
    const { token } = await hookTemplate(h, `${slow.url}/d`);
    const sent = await h.sendV2({ token, title: 'in flight' });
    expect(sent.status).toBe(200);
    await slow.waitForRequests(1);
    await thread(h).crashForTest();
    // Attempted again by the main thread, long before the lease would run out.
    await slow.waitForRequests(2, 10_000);
    restore();
    expect(titlesAt(slow, '/d')).toEqual(['in flight', 'in flight']);
    expect(warnings.join('\n')).toMatch(
      /1 deliveries the delivery thread had claimed are queued again/,
    );
    const { items } = await h.console.ok('GET', '/logs?q=flight');
    await until(async () => {
      const log = await h.console.ok('GET', `/logs/${items[0].id}`);
      return log.deliveries.every((d: any) => d.status === 'sent');
    });
  });

  it('auto: a burst that fills every slot starts the thread; idle, it stops and the main thread delivers again', async () => {
    const h = await open('auto', { HERALD_TEST_THREAD_IDLE_MS: '400' });
    const t = thread(h);
    expect(t.running).toBe(false);
    // Slow enough that the 64 slots fill even when the machine accepts slowly.
    const slow = await peer({ status: 200, body: '{}', delayMs: 1_000 });
    const { token } = await hookTemplate(h, `${slow.url}/s`);
    // More than the 64 attempt slots at once: held back while they are accepted, so the slots
    // fill however slowly a busy machine accepts them (below 64 a second, a 1 s peer kept up).
    h.server.deliveries.pause();
    await Promise.all(Array.from({ length: 150 }, (_, i) => h.sendV2({ token, title: `b${i}` })));
    h.server.deliveries.resume();
    // From the sources the thread compiles its modules as it starts: long on a busy machine.
    await until(() => t.starts === 1, 60_000);
    await slow.waitForRequests(150, 30_000);
    const titles = titlesAt(slow, '/s');
    expect(new Set(titles).size).toBe(150);
    await until(() => !t.running && !h.server.ctx.dispatcher.handedOver, 10_000);
    // The main thread claims again.
    await h.sendV2({ token, title: 'after idle' });
    await slow.waitForRequests(151);
    expect(titlesAt(slow, '/s')).toContain('after idle');
    await new Promise((r) => setTimeout(r, 300));
    expect(slow.received).toHaveLength(151);
    expect(t.starts).toBe(1);
    // Its own waits add up to 100 s on a busy machine (the thread's start from the sources above
    // all): the suite's 30 s default cut it short while it was still waiting as designed.
  }, 120_000);

  it('a thread that cannot start leaves Herald delivering on the main thread, said once', async () => {
    const broken = join(mkdtempSync(join(tmpdir(), 'herald-broken-thread-')), 'thread.mjs');
    writeFileSync(broken, "throw new Error('a broken build');\n");
    const { lines: warnings, restore } = captureLog('warn');
    try {
      const h = await open('on', { HERALD_DELIVERY_WORKER_FILE: broken });
      expect(thread(h).running).toBe(false);
      expect(h.server.ctx.dispatcher.handedOver).toBe(false);
      expect(warnings.filter((w) => /the delivery thread did not start/.test(w))).toHaveLength(1);
      const p = await peer();
      const { token } = await hookTemplate(h, `${p.url}/main`);
      await h.sendV2({ token, title: 'on the main thread' });
      await p.waitForRequests(1);
      expect(titlesAt(p, '/main')).toEqual(['on the main thread']);
    } finally {
      restore();
      rmSync(dirname(broken), { recursive: true, force: true });
    }
  });

  it('off: there is no thread', async () => {
    const h = await open('off');
    expect(h.server.ctx.deliveryThread).toBeNull();
  });

  it('on, with a clock a test moves: no thread, and the main thread delivers by that clock', async () => {
    // A day ahead of the system clock the thread would keep time by: nothing would be due there.
    const h = await open('on', {}, { clock: new ManualClock(Date.now() + 24 * 60 * 60_000) });
    expect(h.server.ctx.deliveryThread).toBeNull();
    const p = await peer();
    const { token } = await hookTemplate(h, `${p.url}/m`);
    await h.sendV2({ token, title: 'by the moved clock' });
    await p.waitForRequests(1);
    expect(titlesAt(p, '/m')).toEqual(['by the moved clock']);
  });

  it("another process's channel edit (announced by invalidateConfigCache) is seen by the next delivery", async () => {
    const h = await open('off');
    const channels = h.server.ctx.channels;
    const hook = await h.createChannel('webhook', { url: 'http://127.0.0.1:9/old' });
    expect(((await channels.loadRuntime(hook.id))!.config as any).url).toBe(
      'http://127.0.0.1:9/old',
    );
    // Written as another process would: past this process's model hooks.
    await h.server.ctx.writeLock.run(({ sql }) =>
      sql.exec(
        `UPDATE channels SET config = json_set(config, '$.url', 'http://127.0.0.1:9/new') WHERE id = ${hook.id}`,
      ),
    );
    expect(((await channels.loadRuntime(hook.id))!.config as any).url).toBe(
      'http://127.0.0.1:9/old',
    );
    invalidateConfigCache();
    expect(((await channels.loadRuntime(hook.id))!.config as any).url).toBe(
      'http://127.0.0.1:9/new',
    );
  });
});
