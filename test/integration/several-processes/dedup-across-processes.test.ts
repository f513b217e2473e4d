import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { KEY_FILE } from '../../../server/crypto/server-key';
import { startTestHerald, textInstances, type TestHerald } from '../../helpers/herald';
import { createTestDatabase, dropTestDatabase } from '../../helpers/test-database';

/**
 * Two Heralds in this process on one PostgreSQL database, each with its own Writer and pool:
 * to the database, two processes. An alert storm posted to both at once with one dedup key
 * is delivered once; every other send is recorded as suppressed and counted on that one.
 */
let database: { name: string; url: string };
const heralds: TestHerald[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const h of heralds.splice(0)) await h.close(true);
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

describe('dedup across processes on PostgreSQL', () => {
  it('delivers one send of a storm posted to two processes at once', async () => {
    const a = await startTestHerald({ databaseUrl: database.url });
    heralds.push(a);
    const dirB = mkdtempSync(join(tmpdir(), 'herald-test-'));
    copyFileSync(join(a.dataDir, KEY_FILE), join(dirB, KEY_FILE));
    const b = await startTestHerald({ databaseUrl: database.url, dataDir: dirB, setup: false });
    heralds.push(b);
    const inbox = await a.createChannel('hosted', {}, 'inbox');
    const { token } = await a.createTemplate({ text: 'disk full' }, textInstances([inbox.id]));
    const storm = Array.from({ length: 24 }, (_, i) =>
      (i % 2 === 0 ? a : b).sendV2({ token, title: `storm ${i}`, dedupKey: 'disk' }),
    );
    const answers = await Promise.all(storm);
    for (const r of answers) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const delivered = answers.filter((r) => r.body.data.deduplicated === false);
    expect(delivered).toHaveLength(1);
    const firstIds = new Set(answers.map((r) => r.body.data.firstSendId).filter(Boolean));
    expect(firstIds.size).toBe(1);
    const [first] = [...firstIds];
    const sends = await rows<{
      id: number;
      status: string;
      suppressed_by: number | null;
      suppressed_count: number;
    }>('SELECT id, status, suppressed_by, suppressed_count FROM sends ORDER BY id');
    expect(sends).toHaveLength(24);
    const opened = sends.filter((s) => s.status !== 'suppressed');
    expect(opened.map((s) => s.id)).toEqual([first]);
    expect(opened[0].suppressed_count).toBe(23);
    expect(sends.filter((s) => s.suppressed_by === first)).toHaveLength(23);
    const [{ n }] = await rows<{ n: string }>('SELECT count(*) AS n FROM deliveries');
    expect(Number(n)).toBe(1);
    // The dashboard counts them apart from the delivered one.
    const stats = await a.console.ok('GET', '/stats?days=1');
    expect(stats.days[0]).toMatchObject({ suppressed: 23 });
    expect(stats.days[0].sent + stats.days[0].pending).toBe(1);
  });
});
