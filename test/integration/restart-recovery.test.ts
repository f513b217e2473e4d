import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { startHttpPeer } from '../helpers/http-peer';
import { ADMIN, ConsoleClient } from '../helpers/herald';

const root = join(import.meta.dirname, '..', '..');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Runs the real headless entry in its own process, so it can be killed like a crash. */
async function startProcess(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'server/cli.ts'), '--data-dir', dataDir, '--port', String(port)],
    {
      cwd: root,
      env: {
        ...process.env,
        HERALD_ADMIN_USER: ADMIN.username,
        HERALD_ADMIN_PASSWORD: ADMIN.password,
        HERALD_LOG: 'error',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`Herald did not start: ${out}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Herald is running at')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => reject(new Error(`Herald exited with ${code}: ${out}`)));
  });
  return child;
}

const exited = (child: ChildProcess) => new Promise((r) => child.once('exit', r));

describe('restart with deliveries in flight', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-restart-'));
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('startServer() claims in-flight deliveries again after a crash and never resends what succeeded', async () => {
    const fast = await startHttpPeer();
    const slow = await startHttpPeer();
    slow.script.push('hang');
    const port = await freePort();
    let child = await startProcess(dataDir, port);
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
    const t = await client.ok('POST', '/templates', { name: 'crash', text: 'survive' });
    await client.ok('POST', `/templates/${t.id}/instances`, {
      channelId: a.id,
      contentType: 'text',
    });
    await client.ok('POST', `/templates/${t.id}/instances`, {
      channelId: b.id,
      contentType: 'text',
    });
    const { token } = await client.ok('GET', `/templates/${t.id}/token`);
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
    child.kill('SIGKILL');
    await exited(child);

    child = await startProcess(dataDir, port);
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
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    await fast.close();
    await slow.close();
  }, 90_000);
});
