import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { ADMIN, ConsoleClient, textInstances } from '../../helpers/herald';
import { freePort, startHeraldProcess, type HeraldProcess } from '../../helpers/herald-process';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';

/**
 * A digest interrupted by a kill -9 (issue 46 §2): the process dies inside the transaction that
 * claims a window and stores its message, after the rows are written and before the commit.
 * Every collected send was committed before it was answered; the restart finds the window
 * still open and delivers it whole, once per channel: nothing lost, nothing doubled.
 */
const processes: HeraldProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'herald-crash-digest-'));
let peer: HttpPeer;

afterAll(async () => {
  for (const p of processes) p.child.kill('SIGKILL');
  await peer?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a crash while a digest is being closed', () => {
  it('leaves the window open, and the restart delivers it whole, once', async () => {
    peer = await startHttpPeer();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const crashing = await startHeraldProcess(dataDir, port, {
      HERALD_TEST_CRASH_AT: 'digest-before-commit',
    });
    processes.push(crashing);
    const client = new ConsoleClient(url);
    await client.ok('POST', '/login', ADMIN);
    const channels = [];
    for (const path of ['a', 'b']) {
      channels.push(
        await client.ok('POST', '/channels', {
          name: `digest-${path}`,
          type: 'webhook',
          config: { url: `${peer.url}/${path}` },
        }),
      );
    }
    const { template, token } = await client.createTemplate(
      { name: 'storm', text: 'alert' },
      textInstances(channels.map((c) => c.id)),
    );
    // A window that ends within seconds: the cron expression's first field is seconds.
    await client.ok('PUT', `/templates/${template.id}/digest`, {
      cron: '*/2 * * * * *',
      timezone: 'UTC',
    });
    const answered: string[] = [];
    const attempted: string[] = [];
    for (let i = 0; i < 12; i++) {
      attempted.push(`alert ${i}`);
      const res = await fetch(`${url}/api/v2/message/send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token, title: `alert ${i}` }),
      }).catch(() => null);
      // The window may close (and the process die) while the storm is still arriving.
      if (!res) break;
      const body = (await res.json()) as { code: number; data: { digest?: { until: string } } };
      expect(body.code).toBe(200);
      expect(body.data.digest?.until).toBeDefined();
      answered.push(`alert ${i}`);
    }
    expect(answered.length).toBeGreaterThan(0);
    const exit = await crashing.exit;
    expect(exit.signal).toBe('SIGKILL');
    expect(crashing.output()).toContain('herald: test crash at digest-before-commit');
    await peer.waitForNoConnections();
    // Nothing of the digest got out: its send and deliveries died with the transaction.
    expect(peer.received).toEqual([]);

    const restarted = await startHeraldProcess(dataDir, port);
    processes.push(restarted);
    const again = new ConsoleClient(url);
    await again.ok('POST', '/login', ADMIN);
    // Each window closed once; the storm may have straddled two windows' ends.
    const digests = await waitFor(async () => {
      const { items } = await again.ok('GET', `/logs?templateId=${template.id}&status=sent`);
      const carried = await Promise.all(
        items.map(async (s: { id: number }) => (await again.ok('GET', `/logs/${s.id}`)).digestOf),
      );
      const titles = carried.flat().map((s: { title: string }) => s.title);
      return answered.every((t) => titles.includes(t)) ? { items, titles } : null;
    });
    // Every answered send once; a send the kill cut off unanswered may have been committed too.
    expect(new Set(digests.titles).size).toBe(digests.titles.length);
    expect(digests.titles.filter((t: string) => !attempted.includes(t))).toEqual([]);
    for (const path of ['/a', '/b']) {
      const got = peer.received.filter((r) => r.url === path);
      expect(got).toHaveLength(digests.items.length);
      const counted = got
        .map((r) => Number(/^(\d+) messages?/.exec((r.json as { content: string }).content)?.[1]))
        .reduce((a, b) => a + b, 0);
      expect(counted).toBe(digests.titles.length);
    }
    restarted.child.kill('SIGTERM');
    expect(await restarted.exit).toEqual({ code: 0, signal: null });
  }, 60_000);
});

async function waitFor<T>(fn: () => Promise<T | null>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('waitFor: condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
