/**
 * The bench's budget row reads each part of Herald's work alone from a paused Herald
 * (scripts/bench/paused-herald.ts): if its deliveries ran while it accepts, the accept's CPU
 * would hold delivery work, and if SIGUSR2 did not resume them, the row would wait forever.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildPausedHerald } from '../../../scripts/build-server.mjs';
import { ADMIN, BenchConsole, startHerald } from '../../../scripts/bench/herald-process';
import { stopGroup, type Spawned } from '../../../scripts/bench/processes';
import { freePort } from '../../../scripts/bench/shared';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';

let dir: string;
let peer: HttpPeer;
let herald: Spawned;
let api: BenchConsole;
let send: (title: string) => Promise<number>;

/** Long enough for an unpaused Herald to deliver to a loopback peer many times over. */
const QUIET_MS = 750;

const logsOf = async () =>
  (await api.call<{ items: { title: string; status: string }[] }>('GET', '/logs?pageSize=50'))
    .items;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'herald-paused-'));
  peer = await startHttpPeer({ status: 200, body: '{"ok":true}' });
  const script = await buildPausedHerald();
  const port = await freePort();
  herald = await startHerald(process.cwd(), dir, port, undefined, {}, script);
  const url = `http://127.0.0.1:${port}`;
  api = new BenchConsole(url);
  await api.call('POST', '/login', ADMIN);
  const hooks = [
    await api.channel('webhook', { url: `${peer.url}/a` }),
    await api.channel('webhook', { url: `${peer.url}/b` }),
  ];
  const token = await api.token('templates', hooks);
  send = async (title) =>
    (
      await fetch(`${url}/api/v2/message/send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token, title, placeholders: { host: 'h', pct: 1 } }),
      })
    ).status;
}, 180_000);

afterAll(async () => {
  if (herald) await stopGroup(herald.child);
  await peer?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the bench's paused Herald", () => {
  it('accepts sends without delivering them, delivers on SIGUSR2 and pauses on the next', async () => {
    expect(await Promise.all(['one', 'two', 'three'].map(send))).toEqual([200, 200, 200]);
    await new Promise((r) => setTimeout(r, QUIET_MS));
    expect(peer.received).toHaveLength(0);
    expect((await logsOf()).map((s) => s.status)).toEqual(['pending', 'pending', 'pending']);

    process.kill(herald.child.pid!, 'SIGUSR2');
    const arrived = await peer.waitForRequests(6);
    expect(arrived.map((r) => r.url).sort()).toEqual(['/a', '/a', '/a', '/b', '/b', '/b']);

    process.kill(herald.child.pid!, 'SIGUSR2');
    // Signals are handled on the event loop: the send after this answer finds them paused.
    await logsOf();
    expect(await send('four')).toBe(200);
    await new Promise((r) => setTimeout(r, QUIET_MS));
    expect(peer.received).toHaveLength(6);

    process.kill(herald.child.pid!, 'SIGUSR2');
    await peer.waitForRequests(8);
    const titles = (await logsOf()).map((s) => s.title);
    expect(titles).toContain('four');
  });
});
