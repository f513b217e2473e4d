import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { ADMIN, ConsoleClient, textInstances } from '../../helpers/herald';
import { freePort, startHeraldProcess, type HeraldProcess } from '../../helpers/herald-process';
import { startHttpPeer } from '../../helpers/recording-peer';

describe('restart with deliveries in flight', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-restart-'));
  const children: HeraldProcess[] = [];
  afterAll(() => {
    for (const c of children) c.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('startServer() claims in-flight deliveries again after a crash and never resends what succeeded', async () => {
    const fast = await startHttpPeer();
    const slow = await startHttpPeer();
    slow.script.push('hang');
    const port = await freePort();
    let child = await startHeraldProcess(dataDir, port);
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    const client = new ConsoleClient(url);
    await client.ok('POST', '/login', ADMIN);
    const a = await client.ok('POST', '/channels', {
      name: 'fast',
      type: 'webhook',
      config: { url: `${fast.url}/a` },
    });
    const b = await client.ok('POST', '/channels', {
      name: 'slow',
      type: 'webhook',
      config: { url: `${slow.url}/b` },
    });
    const { token } = await client.createTemplate(
      { name: 'crash', text: 'survive' },
      textInstances([a.id, b.id]),
    );
    const res = await fetch(`${url}/api/v2/message/send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, title: 'crash test' }),
    });
    expect(((await res.json()) as { data: { count: number } }).data.count).toBe(2);
    await fast.waitForRequests(1);
    await slow.waitForRequests(1);
    // The fast delivery's success is recorded; the slow one is still in flight.
    for (;;) {
      const log = await client.ok('GET', '/logs?q=crash');
      const detail = await client.ok('GET', `/logs/${log.items[0].id}`);
      const states = detail.deliveries.map((d: { status: string }) => d.status).sort();
      if (states.join() === 'sending,sent') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    child.child.kill('SIGKILL');
    await child.exit;

    child = await startHeraldProcess(dataDir, port);
    children.push(child);
    await slow.waitForRequests(2, 20_000);
    const client2 = new ConsoleClient(url);
    await client2.ok('POST', '/login', ADMIN);
    let detail;
    for (;;) {
      const log = await client2.ok('GET', '/logs?q=crash');
      detail = await client2.ok('GET', `/logs/${log.items[0].id}`);
      if (detail.status === 'sent') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(fast.received).toHaveLength(1);
    expect(slow.received).toHaveLength(2);
    expect(slow.received[1].json).toEqual(slow.received[0].json);
    // A clean stop on SIGTERM: exit code 0.
    child.child.kill('SIGTERM');
    expect(await child.exit).toEqual({ code: 0, signal: null });
    await fast.close();
    await slow.close();
  }, 90_000);
});
