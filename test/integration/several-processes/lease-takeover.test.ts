import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { KEY_FILE } from '../../../server/crypto/server-key';
import { addLogSink } from '../../../server/lib/logger';
import { LEASE_MS } from '../../../server/queue/delivery-state';
import { startTestHerald, textInstances, type TestHerald } from '../../helpers/herald';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { ManualClock } from '../../helpers/manual-clock';
import { createTestDatabase, dropTestDatabase } from '../../helpers/test-database';

/**
 * Two Heralds in this process on one PostgreSQL database, each with its own Writer, pool,
 * dispatcher and clock: to the database, two processes. One's attempt outlives its lease, the
 * other takes the delivery over, and the first one's outcome arrives while the second still
 * holds it.
 */
let database: { name: string; url: string };
const heralds: TestHerald[] = [];
let peer: HttpPeer;

beforeEach(async () => {
  database = await createTestDatabase();
  peer = await startHttpPeer();
});
afterEach(async () => {
  for (const h of heralds.splice(0)) await h.close(true);
  await peer.close();
  await dropTestDatabase(database.name);
});

async function start(clock: ManualClock, dataDir?: string): Promise<TestHerald> {
  const h = await startTestHerald({
    databaseUrl: database.url,
    clock,
    startDispatcher: false,
    dataDir,
  });
  heralds.push(h);
  return h;
}

async function rows<T>(sql: string, values: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

describe('a delivery another process took over when its lease ran out', () => {
  it("keeps the taker's outcome; the first process's late one changes nothing and is logged once", async () => {
    const clockA = new ManualClock();
    const clockB = new ManualClock();
    const a = await start(clockA);
    // B has A's key, as every process on one database must.
    const dirB = mkdtempSync(join(tmpdir(), 'herald-test-'));
    copyFileSync(join(a.dataDir, KEY_FILE), join(dirB, KEY_FILE));
    const b = await start(clockB, dirB);
    const hook = await a.createChannel('webhook', { url: peer.url });
    const { token } = await a.createTemplate({ text: 'taken over' }, textInstances([hook.id]));
    const sent = await a.sendV2({ token, title: 'lease' });
    expect(sent.status).toBe(200);
    // A's request fails, slowly; B's, sent meanwhile, succeeds after A's failure is in.
    peer.script.push({ status: 503, delayMs: 500 }, { status: 200, delayMs: 3_000 });

    const warnings: string[] = [];
    const removeSink = addLogSink((line) => warnings.push(line));
    const logLevel = process.env.HERALD_LOG;
    process.env.HERALD_LOG = 'warn';
    try {
      const runA = a.server.ctx.dispatcher.runDue();
      await peer.waitForRequests(1);
      // On B's clock, A's lease has run out: B claims the delivery and sends it.
      clockB.advance(LEASE_MS + 1);
      const runB = b.server.ctx.dispatcher.runDue();
      expect(await Promise.all([runA, runB])).toEqual([1, 1]);
    } finally {
      removeSink();
      if (logLevel === undefined) delete process.env.HERALD_LOG;
      else process.env.HERALD_LOG = logLevel;
    }

    expect(peer.received).toHaveLength(2);
    const [delivery] = await rows<{
      id: number;
      status: string;
      attempts: number;
      last_error: string | null;
    }>('SELECT id, status, attempts, last_error FROM deliveries', []);
    // Without the lease check, A's 503 moved it to `retrying` and B's success was refused.
    expect(delivery).toMatchObject({ status: 'sent', attempts: 1, last_error: null });
    const attempts = await rows<{ outcome: string }>(
      'SELECT outcome FROM delivery_attempts WHERE delivery_id = $1',
      [delivery.id],
    );
    expect(attempts).toEqual([{ outcome: 'sent' }]);
    const [send] = await rows<{ status: string }>('SELECT status FROM sends', []);
    expect(send.status).toBe('sent');
    const lost = warnings.filter((w) => w.includes(`delivery ${delivery.id}: its lease ran out`));
    expect(lost).toHaveLength(1);
    expect(lost[0]).toContain('(retrying) was not recorded');
  }, 60_000);
});
