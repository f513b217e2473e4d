import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importMessageNest } from '../../../server/features/import/message-nest/importer';
import { openSource } from '../../../server/features/import/message-nest/source';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { messageNestRows, type Row } from './mn-fixture';

/* eslint-disable @typescript-eslint/no-explicit-any -- drivers are loaded untyped, as the importer does */

/**
 * Message Nest on MySQL (MariaDB) and PostgreSQL, as the test machine runs them on loopback
 * (root without password; trust auth). The drivers are optional dependencies of the importer.
 */
const DB = `mn_import_${process.pid}`;
const MYSQL_ADMIN = 'mysql://root@127.0.0.1:3306/mysql';
const PG_ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';

const TABLES = ['send_ways', 'send_tasks', 'send_tasks_ins', 'template', 'hosted_message'];

/** The GORM DDL of the tables this test fills, per dialect. */
function ddl(dialect: 'mysql' | 'pg'): string[] {
  const q = (n: string) => (dialect === 'mysql' ? `\`${n}\`` : `"${n}"`);
  const ts = dialect === 'mysql' ? 'datetime(3)' : 'timestamptz';
  const serial = dialect === 'mysql' ? 'int AUTO_INCREMENT PRIMARY KEY' : 'serial PRIMARY KEY';
  const audit = `created_by varchar(100) DEFAULT '', modified_by varchar(100) DEFAULT '', created_on ${ts}, modified_on ${ts}`;
  return [
    `CREATE TABLE ${q('message_send_ways')} (id varchar(12) PRIMARY KEY, ${audit}, name varchar(100), type varchar(100), auth varchar(2048))`,
    `CREATE TABLE ${q('message_send_tasks')} (id varchar(12) PRIMARY KEY, ${audit}, name varchar(100))`,
    `CREATE TABLE ${q('message_send_tasks_ins')} (id varchar(12) PRIMARY KEY, ${audit}, task_id varchar(12), template_id varchar(12), way_id varchar(12), way_type varchar(100), content_type varchar(100), config text, extra text, enable int DEFAULT 1)`,
    `CREATE TABLE ${q('message_template')} (id varchar(12) PRIMARY KEY, ${audit}, name varchar(200) NOT NULL, description text, text_template text, html_template text, markdown_template text, placeholders text, at_mobiles text, at_user_ids text, is_at_all boolean DEFAULT false, status varchar(20) DEFAULT 'enabled')`,
    `CREATE TABLE ${q('message_hosted_message')} (id ${serial}, title text, content text, type varchar(100), unique_key varchar(50) DEFAULT '', created_on ${ts}, modified_on ${ts})`,
  ];
}

/** The fixture's rows with driver-friendly values: Dates for times, booleans for bools. */
function rowsFor(table: string): Row[] {
  return (messageNestRows()[table] ?? []).map((row) => {
    const out: Record<string, unknown> = { ...row };
    for (const key of ['created_on', 'modified_on']) {
      if (key in out) out[key] = new Date('2026-07-20T01:15:02.123Z');
    }
    if ('is_at_all' in out) out.is_at_all = Boolean(out.is_at_all);
    return out as Row;
  });
}

async function load<T>(name: string): Promise<T | null> {
  const specifier: string = name;
  try {
    const mod = (await import(specifier)) as { default?: T } & T;
    return mod.default ?? mod;
  } catch {
    return null;
  }
}

async function mysqlReady(): Promise<any | null> {
  const driver = await load<any>('mysql2/promise');
  if (!driver) return null;
  try {
    const c = await driver.createConnection({ uri: MYSQL_ADMIN, connectTimeout: 3000 });
    await c.query(`DROP DATABASE IF EXISTS ${DB}`);
    await c.query(`CREATE DATABASE ${DB} CHARACTER SET utf8mb4`);
    await c.query(`USE ${DB}`);
    for (const sql of ddl('mysql')) await c.query(sql);
    for (const table of TABLES) {
      for (const row of rowsFor(table)) {
        await c.query(`INSERT INTO \`message_${table}\` SET ?`, [row]);
      }
    }
    return c;
  } catch {
    return null;
  }
}

async function pgReady(): Promise<any | null> {
  const driver = await load<any>('pg');
  if (!driver) return null;
  try {
    const admin = new driver.Client({ connectionString: PG_ADMIN, connectionTimeoutMillis: 3000 });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.query(`CREATE DATABASE ${DB}`);
    await admin.end();
    const c = new driver.Client({ connectionString: PG_ADMIN.replace(/postgres$/, DB) });
    await c.connect();
    for (const sql of ddl('pg')) await c.query(sql);
    for (const table of TABLES) {
      for (const row of rowsFor(table)) {
        const cols = Object.keys(row);
        await c.query(
          `INSERT INTO "message_${table}" (${cols.map((k) => `"${k}"`).join(',')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(',')})`,
          cols.map((k) => row[k]),
        );
      }
    }
    return c;
  } catch {
    return null;
  }
}

// In order: the PostgreSQL import finds what the MySQL one brought (the same Message Nest).
describe('importing from a MySQL or PostgreSQL Message Nest', { shuffle: false }, () => {
  let herald: TestHerald;
  let mysql: any;
  let pg: any;

  beforeAll(async () => {
    herald = await startTestHerald();
    mysql = await mysqlReady();
    pg = await pgReady();
  });

  afterAll(async () => {
    await herald.close(true);
    if (mysql) {
      await mysql.query(`DROP DATABASE IF EXISTS ${DB}`);
      await mysql.end();
    }
    if (pg) {
      await pg.end();
      const driver = await load<any>('pg');
      const admin = new driver.Client({ connectionString: PG_ADMIN });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
      await admin.end();
    }
  });

  const deps = () => {
    const ctx = herald.server.ctx;
    return {
      writeLock: ctx.writeLock,
      registry: ctx.registry,
      channels: ctx.channels,
      schedules: ctx.schedules,
      settings: ctx.settings,
      now: () => new Date(),
    };
  };

  it('reads a MySQL database in a read-only transaction and imports it', async (t) => {
    if (!mysql) t.skip();
    const source = await openSource(`mysql://root@127.0.0.1:3306/${DB}`);
    try {
      expect(source.description).toBe(`the MySQL database mysql://root@127.0.0.1:3306/${DB}`);
      const report = await importMessageNest(source, deps(), { dryRun: false, withLogs: false });
      expect(report.counts.channels).toEqual({ created: 14, alreadyImported: 0, skipped: 1 });
      expect(report.counts.templates.created).toBe(2);
      expect(report.counts.hostedMessages.created).toBe(2);
    } finally {
      await source.close();
    }
    const welcome = (await herald.console.ok('GET', '/templates')).items.find(
      (x: any) => x.legacyId === 'TP0000000001',
    );
    expect(welcome).toMatchObject({ atAll: true, enabled: true, name: 'Welcome' });
  });

  it('reads a PostgreSQL database the same way; what MySQL brought is already imported', async (t) => {
    if (!pg) t.skip();
    const source = await openSource(`postgres://postgres@127.0.0.1:5432/${DB}`);
    try {
      const report = await importMessageNest(source, deps(), { dryRun: true, withLogs: false });
      // Same Message Nest ids as the MySQL copy: nothing is created twice.
      expect(report.counts.channels.created).toBe(mysql ? 0 : 11);
      expect(report.counts.tasks.created + report.counts.tasks.alreadyImported).toBe(3);
      expect(report.counts.templates.created + report.counts.templates.alreadyImported).toBe(2);
    } finally {
      await source.close();
    }
  });
});
