import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startServer } from '../../../server';
import type { Database } from '../../../server/db/database';
import { migrate, MIGRATION_NAMES } from '../../../server/db/migrate';
import { initModels } from '../../../server/db/models';
import { compactHistoryTotals } from '../../../server/db/postgres/history-postgres';
import {
  DatabaseUnreachableError,
  openPostgresDatabase,
} from '../../../server/db/postgres/open-postgres';
import { SEARCH_TEXT } from '../../../server/db/postgres/search-text';
import { createTestDatabase, dropTestDatabase } from '../../helpers/test-database';
import { heraldArgs } from '../../helpers/herald-bin';

const root = join(import.meta.dirname, '..', '..', '..');
/** Nothing listens on port 1: the connection is refused at once. */
const UNREACHABLE = 'postgres://herald:hunter2@127.0.0.1:1/herald';

describe('a PostgreSQL database that cannot be reached at start', () => {
  it('stops startServer with an error naming HERALD_DATABASE_URL, without the password', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-pg-'));
    try {
      const started = startServer({ dataDir, port: 0, databaseUrl: UNREACHABLE });
      await expect(started).rejects.toBeInstanceOf(DatabaseUnreachableError);
      await expect(started).rejects.toThrow(
        /cannot reach the PostgreSQL database.*HERALD_DATABASE_URL/,
      );
      await expect(started).rejects.not.toThrow(/hunter2/);
      // The data folder's lock was given back: a second try gets the same answer, not "locked".
      await expect(
        startServer({ dataDir, port: 0, databaseUrl: UNREACHABLE }),
      ).rejects.toBeInstanceOf(DatabaseUnreachableError);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('makes the headless server exit non-zero with that message', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-pg-'));
    try {
      const child = spawn(process.execPath, heraldArgs(['--data-dir', dataDir, '--port', '0']), {
        cwd: root,
        env: { ...process.env, HERALD_DATABASE_URL: UNREACHABLE, HERALD_LOG: 'error' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect(code).not.toBe(0);
      expect(out).toMatch(/cannot reach the PostgreSQL database at postgres:\/\/herald:\*\*\*@/);
      expect(out).not.toContain('hunter2');
      expect(out).not.toContain('Herald is running');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

// One journey: its steps build on each other, so they run in order even when CI shuffles.
describe('migrations on PostgreSQL', { shuffle: false }, () => {
  let name: string;
  let db: Database;

  beforeAll(async () => {
    const created = await createTestDatabase();
    name = created.name;
    db = await openPostgresDatabase(created.url);
    initModels(db.sequelize);
  });
  afterAll(async () => {
    await db.close();
    await dropTestDatabase(name);
  });

  const select = <T extends object>(sql: string) =>
    db.sequelize.query<T>(sql, { type: QueryTypes.SELECT });

  it('apply every migration once, and again nothing', async () => {
    const applied = await migrate(db.sequelize);
    expect(applied).toEqual([...MIGRATION_NAMES]);
    expect(await migrate(db.sequelize)).toEqual([]);
    const tables = (
      await select<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
      )
    ).map((t) => t.tablename);
    for (const t of [
      'sends',
      'deliveries',
      'schedules',
      'import_map',
      'send_day_rollup',
      'rate_windows',
      'login_failures',
    ])
      expect(tables).toContain(t);
  });

  it.each(['hosted_messages', 'sends'] as const)(
    'give %s a trigram index that the search text can use',
    async (table) => {
      // The planner prefers a scan on a small table; forbidding it shows whether the index
      // answers the very expression history-search sends, which must match the migration's.
      const plan = await db.writer.run(async ({ transaction }) => {
        await db.sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
        return db.sequelize.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT b.id FROM ${table} b WHERE ${SEARCH_TEXT[table]('b')} ILIKE '%backup%'`,
          { type: QueryTypes.SELECT, transaction },
        );
      });
      expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain(`${table}_search`);
    },
  );

  it('keep the counters and roll-ups by trigger as rows come, change and go', async () => {
    const at = '2026-11-20 10:00:00+00';
    await db.writer.run(async ({ sql }) => {
      await sql.run(
        `INSERT INTO sends (api, source_name, title, request, status, delivery_count, created_at, updated_at)
         SELECT 'v2', 'src', 'title ' || i, '{}', 'pending', 1, $1, $1 FROM generate_series(1, 3) i`,
        [at],
      );
      await sql.run(`UPDATE sends SET status = 'sent' WHERE title = 'title 1'`);
      await sql.run(`DELETE FROM sends WHERE title = 'title 3'`);
      await sql.run(
        `INSERT INTO hosted_messages (title, content, format, created_at, updated_at)
         VALUES ('a', 'b', 'text', $1, $1), ('c', 'd', 'text', $1, $1)`,
        [at],
      );
      await sql.run(`UPDATE hosted_messages SET read_at = $1 WHERE title = 'a'`, [at]);
    });
    const totals = async () => ({
      counters: Object.fromEntries(
        (
          await select<{ name: string; n: number }>(
            'SELECT name, sum(n) AS n FROM history_counters GROUP BY name',
          )
        ).map((r) => [r.name, r.n]),
      ),
      sends: await select(
        `SELECT day, status, sum(n) AS n FROM send_day_rollup
         GROUP BY day, status HAVING sum(n) <> 0 ORDER BY status`,
      ),
    });
    const before = await totals();
    expect(before).toEqual({
      counters: { sends: 2, hosted_messages: 2, hosted_messages_unread: 1 },
      sends: [
        { day: '2026-11-20', status: 'pending', n: 1 },
        { day: '2026-11-20', status: 'sent', n: 1 },
      ],
    });
    // Compaction folds the appended deltas into one row per key and changes no sum.
    await db.writer.run(({ transaction }) => compactHistoryTotals(db.sequelize, transaction));
    expect(await totals()).toEqual(before);
    const [rollupRows] = await select<{ n: number }>('SELECT count(*) AS n FROM send_day_rollup');
    expect(rollupRows.n).toBe(2);
    const [counterRows] = await select<{ n: number }>('SELECT count(*) AS n FROM history_counters');
    expect(counterRows.n).toBe(3);
  });
});
