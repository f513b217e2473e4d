/**
 * The bench's floor (scripts/bench/lean-dispatcher.mjs) must be a real durable dispatcher, or
 * the ratio against it means nothing: every accepted send reaches both targets, and a send
 * answered 200 survives the process being killed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { spawnUntil, stopGroup, type Spawned } from '../../../scripts/bench/processes';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';

const script = join(process.cwd(), 'scripts/bench/lean-dispatcher.mjs');

let dir: string;
let peer: HttpPeer;
const started: Spawned[] = [];

async function startLean(): Promise<string> {
  const lean = await spawnUntil(
    process.execPath,
    [script, '--db', join(dir, 'lean.db'), '--targets', `${peer.url}/a,${peer.url}/b`],
    /^(\d+)\n/m,
    { cwd: process.cwd() },
  );
  started.push(lean);
  return `http://127.0.0.1:${lean.match[1]}/send`;
}

/** Sends `ids` from `connections` at once; the ids answered 200 (a refused connection is not). */
async function sendAll(url: string, ids: string[], connections: number, onAccepted?: () => void) {
  const accepted: string[] = [];
  const queue = [...ids];
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let id = queue.shift(); id; id = queue.shift()) {
        try {
          const res = await fetch(url, {
            method: 'POST',
            body: JSON.stringify({ text: `sid-${id}` }),
          });
          if (res.status === 200) {
            accepted.push(id);
            onAccepted?.();
          }
        } catch {
          // the process was killed with this send unanswered
        }
      }
    }),
  );
  return accepted;
}

/** Send id → the paths it reached, and how often. */
function arrivals() {
  const byId = new Map<string, string[]>();
  for (const r of peer.received) {
    const id = /sid-([\w-]+)/.exec(r.body)?.[1];
    if (id) byId.set(id, [...(byId.get(id) ?? []), r.url]);
  }
  return byId;
}

async function untilDelivered(ids: string[]) {
  const deadline = Date.now() + 15_000;
  const missing = () => {
    const byId = arrivals();
    return ids.filter((id) => !['/a', '/b'].every((p) => byId.get(id)?.includes(p)));
  };
  while (missing().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(missing()).toEqual([]);
}

describe('the lean durable dispatcher of the bench floor', () => {
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-lean-'));
    // A peer slower than the accepts (64 in flight × 40 ms: 1,600 deliveries/s), so a backlog
    // of deliveries builds up behind the answered sends, as under the bench's load: the kill
    // below lands with deliveries pending however fast the machine is.
    peer = await startHttpPeer({ status: 200, body: '{"ok":true}', delayMs: 40 });
  });
  afterEach(async () => {
    for (const s of started.splice(0)) await stopGroup(s.child);
    await peer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers every accepted send to both targets, once each', async () => {
    const url = await startLean();
    const ids = Array.from({ length: 200 }, (_, i) => `once-${i}`);
    expect(await sendAll(url, ids, 16)).toHaveLength(200);
    await untilDelivered(ids);
    await new Promise((r) => setTimeout(r, 300));
    expect(peer.received).toHaveLength(400);
  });

  it('retries a target that failed until it answers 2xx', async () => {
    peer.script.push({ status: 503 }, { status: 503 });
    const url = await startLean();
    expect(await sendAll(url, ['retried'], 1)).toEqual(['retried']);
    // Two refusals, then both targets answered 200.
    const got = await peer.waitForRequests(4);
    expect(got.map((r) => r.url).sort()).toEqual(['/a', '/a', '/b', '/b']);
  });

  it('delivers every send it answered 200 after being killed mid-run and restarted', async () => {
    const first = await startLean();
    const victim = started[0];
    let answered = 0;
    const ids = Array.from({ length: 400 }, (_, i) => `kill-${i}`);
    const accepted = await sendAll(first, ids, 16, () => {
      // Killed with sends unanswered, deliveries pending and some in flight at the peer.
      if (++answered === 120) process.kill(-victim.child.pid!, 'SIGKILL');
    });
    expect(accepted.length).toBeGreaterThanOrEqual(120);
    expect(accepted.length).toBeLessThan(400);
    const undelivered = accepted.filter((id) => (arrivals().get(id)?.length ?? 0) < 2);
    expect(undelivered.length).toBeGreaterThan(0);

    const second = await startLean();
    const later = await sendAll(second, ['after-0', 'after-1'], 2);
    await untilDelivered([...accepted, ...later]);
  });
});
