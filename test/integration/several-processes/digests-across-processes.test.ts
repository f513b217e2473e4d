import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { KEY_FILE } from '../../../server/crypto/server-key';
import { startTestHerald, textInstances, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { createTestDatabase, dropTestDatabase } from '../../helpers/test-database';

/**
 * Two Heralds in this process on one PostgreSQL database, each with its own Writer and pool (to
 * the database, two processes), sharing a moved clock. A storm posted to both at once is
 * collected into one digest, and both closing it at once deliver it once per channel.
 */
let database: { name: string; url: string };
let peer: HttpPeer;
const heralds: TestHerald[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  peer = await startHttpPeer();
});
afterAll(async () => {
  for (const h of heralds.splice(0)) await h.close(true);
  await peer.close();
  await dropTestDatabase(database.name);
});

async function rows<T extends Record<string, unknown>>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('digests across processes on PostgreSQL', () => {
  it('collects a storm posted to two processes into one digest, delivered once', async () => {
    const clock = new ManualClock(Date.parse('2026-11-22T08:00:00.000Z'));
    const a = await startTestHerald({ databaseUrl: database.url, clock });
    heralds.push(a);
    const dirB = mkdtempSync(join(tmpdir(), 'herald-test-'));
    copyFileSync(join(a.dataDir, KEY_FILE), join(dirB, KEY_FILE));
    const b = await startTestHerald({
      databaseUrl: database.url,
      dataDir: dirB,
      setup: false,
      clock,
    });
    heralds.push(b);
    // Only the test's ticks close digests, so both processes close at the same moment.
    await a.server.ctx.digests.stop();
    await b.server.ctx.digests.stop();
    const channels = [
      await a.createChannel('webhook', { url: `${peer.url}/one` }, 'one'),
      await a.createChannel('webhook', { url: `${peer.url}/two` }, 'two'),
    ];
    const { template, token } = await a.createTemplate(
      { name: 'storm', text: 'disk full' },
      textInstances(channels.map((c) => c.id)),
    );
    await a.console.ok('PUT', `/templates/${template.id}/digest`, { windowMinutes: 5 });

    const storm = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? a : b).sendV2({ token, title: `storm ${i}` }),
      ),
    );
    for (const r of storm) expect(r.body.data, JSON.stringify(r.body)).toHaveProperty('digest');
    const open = await rows<{ item_count: number }>(
      `SELECT item_count FROM digests WHERE status = 'open'`,
    );
    expect(open).toEqual([{ item_count: 30 }]);

    clock.advance(5 * 60_000);
    // Both close at once, twice each: one claim wins.
    const ticks = await Promise.all([
      a.server.ctx.digests.tick(),
      b.server.ctx.digests.tick(),
      a.server.ctx.digests.tick(),
      b.server.ctx.digests.tick(),
    ]);
    expect(ticks.some((n) => n > 0)).toBe(true);
    await peer.waitForRequests(2);
    const closed = await rows<{ status: string; send_id: number | null }>(
      'SELECT status, send_id FROM digests',
    );
    expect(closed).toEqual([{ status: 'closed', send_id: expect.any(Number) }]);
    const digestSends = await rows<{ id: number; delivery_count: number }>(
      `SELECT id, delivery_count FROM sends WHERE title LIKE 'Digest:%'`,
    );
    expect(digestSends).toEqual([{ id: closed[0].send_id, delivery_count: 2 }]);
    const [{ n }] = await rows<{ n: string }>('SELECT count(*) AS n FROM deliveries');
    expect(Number(n)).toBe(2);
    // The deliveries are done once their send is: then the peer has all there will be.
    await a.waitFor(async () => {
      const [s] = await rows<{ status: string }>(
        `SELECT status FROM sends WHERE id = ${closed[0].send_id}`,
      );
      return s.status === 'sent';
    });
    for (const path of ['/one', '/two']) {
      const got = peer.received.filter((r) => r.url === path);
      expect(got).toHaveLength(1);
      expect((got[0].json as { content: string }).content).toMatch(/^30 messages, /);
    }
  });
});
