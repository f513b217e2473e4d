import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openDatabase } from '../../../../../server/db/database';
import { migrate } from '../../../../../server/db/migrate';
import { initModels } from '../../../../../server/db/models';
import type { SqlExecutor, SqlValue } from '../../../../../server/db/sql';
import { connectionExecutor, SqliteConnection } from '../../../../../server/db/sqlite-connection';
import {
  acceptSends,
  claimDeliveries,
  recordAttempts,
  type AcceptInput,
} from '../../../../../server/queue/delivery-programs';

const delivery = (channelId: number, channelType: 'hosted' | 'webhook') => ({
  instanceId: null,
  channelId,
  channelType,
  contentType: 'text' as const,
  recipient: null,
  title: 'disk almost full',
  content: 'web-3 at 98%',
  url: null,
  mentions: { mobiles: [], userIds: [], all: false },
  previewKey: channelType === 'hosted' ? `key-${Math.random().toString(36).slice(2)}` : null,
  storeOnAccept: channelType === 'hosted',
});
const send = (i: number): AcceptInput => ({
  send: {
    api: 'v2',
    taskId: null,
    templateId: null,
    sourceName: 'plans',
    title: `send ${i}`,
    text: 'web-3 at 98%',
    html: null,
    markdown: null,
    url: null,
    request: {},
    deliveryCount: 3,
  },
  deliveries: [delivery(1, 'hosted'), delivery(2, 'webhook'), delivery(2, 'webhook')],
});

interface PlanRow {
  id: number;
  parent: number;
  detail: string;
}

/**
 * The hot path's statements as SQLite plans them, on a queue with hundreds of deliveries in
 * flight: a cycle's rows travel as one JSON parameter (jsonb_each; ids through json_each), and a plan that walks a
 * table and scans that parameter again for each of its rows costs in-flight × batch steps.
 */
describe('the hot path’s query plans on SQLite', () => {
  let dir: string;
  let conn: SqliteConnection;
  const statements = new Map<string, SqlValue[]>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-plans-'));
    const file = join(dir, 'herald.db');
    const db = await openDatabase(file, { writeWorker: 'off' });
    initModels(db.sequelize);
    await migrate(db.sequelize);
    await db.close();
    conn = new SqliteConnection(file, 5000);
    conn.db.exec(`INSERT INTO channels (id, name, type, config, created_at, updated_at) VALUES
      (1, 'inbox', 'hosted', '{}', datetime(), datetime()),
      (2, 'hook', 'webhook', '{}', datetime(), datetime())`);
    const base = connectionExecutor(conn);
    const sql: SqlExecutor = {
      all: (q, p = []) => (statements.set(q, p), base.all(q, p)),
      run: (q, p = []) => (statements.set(q, p), base.run(q, p)),
      exec: base.exec,
    };
    const now = Date.now();
    const at = { now, wallNow: now, leaseUntil: now + 300_000, lease: 'plans.1' };
    const inTransaction = async <T>(work: () => Promise<T>) => {
      conn.db.exec('BEGIN IMMEDIATE');
      const result = await work();
      conn.db.exec('COMMIT');
      return result;
    };
    await inTransaction(() =>
      acceptSends(
        sql,
        Array.from({ length: 200 }, (_, i) => send(i)),
        at,
      ),
    );
    const [claimed] = await inTransaction(() =>
      claimDeliveries(sql, [{ limit: 300, exclude: [], expired: true }], at),
    );
    expect(claimed.length).toBe(300);
    const outcomes = claimed.slice(0, 100).map((d) => ({
      id: d.id,
      lease: d.lease,
      status: 'sent' as const,
      outcome: 'sent' as const,
      error: null,
      reply: '{"ok":true}',
      startedAt: now,
      durationMs: 3,
      retryAt: null,
    }));
    const recorded = await inTransaction(() => recordAttempts(sql, outcomes, at));
    expect(recorded.every((r) => r.recorded)).toBe(true);
  });
  afterAll(() => {
    conn?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const plan = (q: string) =>
    conn.db
      .prepare(`EXPLAIN QUERY PLAN ${q}`)
      .all(Object.fromEntries(statements.get(q)!.map((v, i) => [i + 1, v]))) as PlanRow[];

  it('ran the accept, claim and outcome statements', () => {
    const texts = [...statements.keys()].join('\n');
    expect(texts).toContain('INSERT INTO sends');
    expect(texts).toContain("SET status = 'sending'");
    expect(texts).toContain('SET status = v.status');
  });

  it('never scan the JSON parameter once per row of a table', () => {
    for (const q of statements.keys()) {
      const rows = plan(q);
      for (const json of rows.filter((r) => /^SCAN jsonb?_each/.test(r.detail))) {
        // Same parent, earlier in the plan: a table this loop runs inside of.
        const outer = rows.filter(
          (r) =>
            r.parent === json.parent &&
            rows.indexOf(r) < rows.indexOf(json) &&
            /^(SEARCH|SCAN) (?!jsonb?_each)\w+/.test(r.detail),
        );
        expect(
          outer.map((r) => r.detail),
          q,
        ).toEqual([]);
      }
    }
  });

  it('never scan a whole table', () => {
    for (const q of statements.keys()) {
      const scans = plan(q).filter((r) =>
        /^SCAN (sends|deliveries|delivery_attempts|hosted_messages)\b/.test(r.detail),
      );
      expect(
        scans.map((r) => r.detail),
        q,
      ).toEqual([]);
    }
  });

  it('find each outcome’s delivery by its id', () => {
    const outcome = [...statements.keys()].find((q) => q.includes('SET status = v.status'))!;
    const rows = plan(outcome).map((r) => r.detail);
    expect(rows[0]).toMatch(/^SCAN jsonb_each/);
    expect(rows).toContain('SEARCH deliveries USING INTEGER PRIMARY KEY (rowid=?)');
  });
});
