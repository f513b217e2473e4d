import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg, { type Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startFeishuPeer } from '../../fixtures/peers/feishu-peer';
import { ADMIN, ConsoleClient } from '../../helpers/herald';
import { freePort, startHeraldProcess, type HeraldProcess } from '../../helpers/herald-process';
import { startHttpPeer, type ReceivedRequest } from '../../helpers/recording-peer';
import { createTestDatabase, dropTestDatabase } from '../../helpers/test-database';

/**
 * Sends in the kill test. 20,000 is issue 14's figure (`HERALD_MULTI_PROCESS_SENDS=20000`,
 * a few minutes here); the suite runs fewer so it stays within a CI run on 2 cores.
 */
const SENDS = Number(process.env.HERALD_MULTI_PROCESS_SENDS ?? 2_000);
const CONNECTIONS = 24;
/**
 * A killed process's claims are taken over after this (HERALD_TEST_LEASE_MS), not 5 minutes.
 * It must outlast a live process's slowest attempt *and its record* under this load: a lease
 * that runs out while the outcome waits for its write cycle lets another process send the
 * delivery again (5 s did, here, with three processes on 2 cores).
 */
const LEASE_MS = 30_000;

interface Node {
  dataDir: string;
  url: string;
  process: HeraldProcess;
  console: ConsoleClient;
  alive: boolean;
}

let database: { name: string; url: string };
let admin: Client;
const nodes: Node[] = [];

/**
 * Three real Herald processes (the headless server, as in production), each with its own data
 * folder and port, on one database and one key.
 */
beforeAll(async () => {
  database = await createTestDatabase();
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const env = {
    HERALD_DATABASE_URL: database.url,
    HERALD_SECRET_KEY: randomBytes(32).toString('hex'),
    HERALD_TEST_LEASE_MS: String(LEASE_MS),
  };
  // One after another: the first runs the migrations and creates the administrator.
  for (let i = 0; i < 3; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), `herald-multi-${i}-`));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = await startHeraldProcess(dataDir, port, env);
    const client = new ConsoleClient(url);
    await client.ok('POST', '/login', ADMIN);
    nodes.push({ dataDir, url, process: proc, console: client, alive: true });
  }
  await nodes[0].console.ok('PUT', '/settings', {
    retry: { baseDelayMs: 200, maxDelayMs: 2_000, jitter: 0 },
  });
}, 120_000);

afterAll(async () => {
  for (const n of nodes) {
    if (n.alive) n.process.child.kill('SIGTERM');
    await n.process.exit;
    rmSync(n.dataDir, { recursive: true, force: true });
  }
  await admin?.end();
  if (database) await dropTestDatabase(database.name);
}, 60_000);

async function send(node: Node, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${node.url}/api/v2/message/send`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { code: number; data: unknown } };
}

async function templateFor(channel: { type: string; config: Record<string, unknown> }) {
  const c = nodes[0].console;
  const created = await c.ok('POST', '/channels', {
    name: `${channel.type}-${randomBytes(3).toString('hex')}`,
    ...channel,
  });
  const template = await c.ok('POST', '/templates', {
    name: `t-${randomBytes(3).toString('hex')}`,
    text: 'across processes',
  });
  await c.ok('POST', `/templates/${template.id}/instances`, {
    channelId: created.id,
    contentType: 'text',
  });
  const { token } = await c.ok('GET', `/templates/${template.id}/token`);
  return { token: token as string, templateId: template.id as number };
}

async function waitUntil(done: () => boolean | Promise<boolean>, why: () => string, ms: number) {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(why());
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function countRows(sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(sql, values);
  return Number(rows[0].n);
}

// One journey: its steps build on each other, so they run in order even when CI shuffles.
describe('three Herald processes on one PostgreSQL database', { shuffle: false }, () => {
  it('keep a rate-limited robot within its limit together', async () => {
    // Herald paces Feishu bots at 5 per 3 s; the bot refuses a sixth within one second. Each
    // process alone would send its 5 at once: 15 within a moment, 10 refused and retried.
    const peer = await startFeishuPeer();
    try {
      const { token } = await templateFor({ type: 'feishu', config: { webhookUrl: peer.url } });
      const answers = await Promise.all(
        Array.from({ length: 15 }, (_, i) => send(nodes[i % 3], { token, title: `paced ${i}` })),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(15).fill(200));
      await waitUntil(
        () => peer.received.length >= 15,
        () => `the bot got ${peer.received.length} of 15`,
        60_000,
      );
      // Every request the bot saw was accepted: none came faster than its limit.
      expect(peer.requests).toBe(15);
      expect(
        await countRows(
          `SELECT count(*) AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
           WHERE d.channel_type = 'feishu' AND a.outcome <> 'sent'`,
        ),
      ).toBe(0);
    } finally {
      await peer.close();
    }
  });

  it('replay an idempotent send once, whichever process each repeat reaches', async () => {
    const { token } = await templateFor({ type: 'hosted', config: {} });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        send(nodes[i % 3], { token, title: 'exactly once' }, { 'Idempotency-Key': 'deploy-7' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    expect(new Set(answers.map((a) => JSON.stringify(a.body.data))).size).toBe(1);
    expect(await countRows(`SELECT count(*) AS n FROM sends WHERE title = 'exactly once'`)).toBe(1);
  });

  it('stop sending through an instance another process disabled', async () => {
    const { token, templateId } = await templateFor({ type: 'hosted', config: {} });
    // Process 2 looks the template up and keeps it until the configuration changes.
    expect((await send(nodes[2], { token, title: 'cached' })).status).toBe(200);
    const [instance] = await nodes[0].console.ok('GET', `/templates/${templateId}/instances`);
    await nodes[0].console.ok('PATCH', `/instances/${instance.id}`, {
      enabled: false,
    });
    await waitUntil(
      async () => (await send(nodes[2], { token, title: 'after' })).status !== 200,
      () => 'process 2 still sends through the disabled instance',
      10_000,
    );
  });

  it('keep a session signed in, and signed out, on every process', async () => {
    const session = new ConsoleClient(nodes[0].url);
    await session.ok('POST', '/login', ADMIN);
    const me = (n: Node) =>
      fetch(`${n.url}/api/console/me`, { headers: { Cookie: session.cookie } });
    expect((await me(nodes[1])).status).toBe(200);
    expect((await me(nodes[2])).status).toBe(200);
    const cookie = session.cookie;
    await session.ok('POST', '/logout');
    session.cookie = cookie;
    expect((await me(nodes[1])).status).toBe(401);
    expect((await me(nodes[2])).status).toBe(401);
  });

  it('fire a scheduled run once, though every process is armed for it', async () => {
    const peer = await startHttpPeer();
    try {
      const { templateId } = await templateFor({ type: 'webhook', config: { url: peer.url } });
      // Created on one process; the others hear of it by NOTIFY and arm their timers too.
      const schedule = await nodes[0].console.ok('POST', '/schedules', {
        name: 'once across',
        templateId,
        runAt: new Date(Date.now() + 3_000).toISOString(),
        title: 'scheduled across',
      });
      await waitUntil(
        async () => (await nodes[1].console.ok('GET', `/schedules/${schedule.id}`)).lastSendId,
        () => 'the schedule never ran',
        30_000,
      );
      // Each process claims with a conditional UPDATE before it sends; the run is claimed.
      expect(
        await countRows(`SELECT count(*) AS n FROM sends WHERE schedule_id = $1`, [schedule.id]),
      ).toBe(1);
    } finally {
      await peer.close();
    }
  });

  it(
    `deliver every accepted send of ${SENDS} at least once while one process is killed`,
    async () => {
      const peer = await startHttpPeer();
      try {
        const { token } = await templateFor({
          type: 'webhook',
          config: { url: peer.url, signingSecret: `whsec_${randomBytes(32).toString('base64')}` },
        });
        const answered = new Set<string>();
        const answeredBy = [0, 0, 0];
        const refused: string[] = [];
        let unanswered = 0;
        let next = 0;
        let sendingAtKill: Set<number> | null = null;
        const victim = nodes[1];
        const kill = async () => {
          victim.alive = false;
          victim.process.child.kill('SIGKILL');
          await victim.process.exit;
          const { rows } = await admin.query<{ id: number }>(
            `SELECT id FROM deliveries WHERE status = 'sending'`,
          );
          sendingAtKill = new Set(rows.map((r: { id: number }) => Number(r.id)));
        };
        let killing: Promise<void> | null = null;
        const worker = async (w: number) => {
          while (next < SENDS) {
            const i = next++;
            const alive = nodes.filter((n) => n.alive);
            const node = alive[(i + w) % alive.length];
            const title = `multi-${i}`;
            try {
              const res = await send(node, { token, title });
              if (res.body.code === 200) {
                answered.add(title);
                answeredBy[nodes.indexOf(node)] += 1;
              } else refused.push(`${title}: ${JSON.stringify(res.body)}`);
            } catch {
              unanswered += 1;
            }
            if (answered.size >= SENDS / 2 && !killing) killing = kill();
          }
        };
        const started = Date.now();
        await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
        const acceptedIn = Date.now() - started;
        await killing;
        expect(victim.process.child.signalCode).toBe('SIGKILL');
        expect(refused, nodes.map((n) => n.process.output().slice(-3_000)).join('\n')).toEqual([]);

        const titleOf = (r: ReceivedRequest) => (r.json as { title?: string }).title ?? '';
        const received = () => new Set(peer.received.map(titleOf));
        const undelivered = () => {
          const got = received();
          return [...answered].filter((t) => !got.has(t));
        };
        await waitUntil(
          async () =>
            undelivered().length === 0 &&
            (await countRows(
              `SELECT count(*) AS n FROM deliveries WHERE status IN ('queued', 'sending', 'retrying')`,
            )) === 0,
          () => `not delivered: ${undelivered().length}`,
          120_000 + SENDS * 20,
        );
        const deliveredIn = Date.now() - started;

        // Every accepted send reached the peer; nothing in the database was left undelivered.
        expect(undelivered()).toEqual([]);
        expect(await countRows(`SELECT count(*) AS n FROM deliveries WHERE status <> 'sent'`)).toBe(
          0,
        );
        // Repeats only of deliveries that were in flight when the process died.
        const copies = new Map<string, ReceivedRequest[]>();
        for (const r of peer.received) {
          const id = String(r.headers['webhook-id']);
          copies.set(id, [...(copies.get(id) ?? []), r]);
        }
        const repeated = [...copies].filter(([, c]) => c.length > 1);
        for (const [id, c] of repeated) {
          const deliveryId = Number(id.split('_').at(-1));
          expect({ id, inFlightAtKill: sendingAtKill!.has(deliveryId) }).toEqual({
            id,
            inFlightAtKill: true,
          });
          expect(new Set(c.map(titleOf)).size).toBe(1);
        }
        // Each process took its share before the kill.
        expect(answeredBy.every((n) => n > 0)).toBe(true);
        console.info(
          `multi-process: ${answered.size} of ${SENDS} sends answered (${unanswered} cut off by the kill) in ${acceptedIn} ms, ` +
            `all delivered after ${deliveredIn} ms; ${peer.received.length} requests, ${repeated.length} repeated ` +
            `(${sendingAtKill!.size} deliveries sending at the kill)`,
        );
      } finally {
        await peer.close();
      }
    },
    300_000 + SENDS * 40,
  );
});
