import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import { Sequelize, UniqueConstraintError } from 'sequelize';
import sqlite3 from 'sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { isDatabaseUnavailable } from '../../../../server/lib/database-errors';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const caught = async (work: () => Promise<unknown> | unknown): Promise<unknown> => {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
};

/** Each error here is produced by the real driver, not built by hand. */
describe('isDatabaseUnavailable', () => {
  let dir: string;
  let file: string;
  let holder: BetterSqlite3.Database;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'herald-dberr-'));
    file = join(dir, 'locked.db');
    holder = new BetterSqlite3(file);
    holder.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)');
    holder.exec("INSERT INTO t (name) VALUES ('taken')");
    // Another program holds the write lock, as a backup tool or a second Herald might.
    holder.exec('BEGIN EXCLUSIVE');
  });
  afterAll(() => {
    holder.exec('ROLLBACK');
    holder.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a PostgreSQL that refuses the connection, as Sequelize reports it', async () => {
    const port = await closedPort();
    const sequelize = new Sequelize(`postgres://x@127.0.0.1:${port}/x`, { logging: false });
    expect(isDatabaseUnavailable(await caught(() => sequelize.authenticate()))).toBe(true);
    await sequelize.close();
  });

  it('an SQLite file another program keeps locked, on both drivers', async () => {
    const writer = new BetterSqlite3(file, { timeout: 0 });
    expect(
      isDatabaseUnavailable(await caught(() => writer.exec("INSERT INTO t (name) VALUES ('x')"))),
    ).toBe(true);
    writer.close();
    // node-sqlite3 carries its own copy of SQLite, which does not see better-sqlite3's locks
    // in this process (database.ts): its lock is held by a node-sqlite3 connection.
    const open = () =>
      new Promise<sqlite3.Database>((resolve, reject) => {
        const db: sqlite3.Database = new sqlite3.Database(join(dir, 'locked-legacy.db'), (err) =>
          err ? reject(err) : resolve(db),
        );
      });
    const exec = (db: sqlite3.Database, sql: string) =>
      new Promise<unknown>((resolve) => db.exec(sql, (e: unknown) => resolve(e)));
    const legacyHolder = await open();
    expect(
      await exec(legacyHolder, 'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)'),
    ).toBeNull();
    expect(await exec(legacyHolder, 'BEGIN EXCLUSIVE')).toBeNull();
    const legacy = await open();
    const err = await exec(legacy, "INSERT INTO t (name) VALUES ('y')");
    expect(isDatabaseUnavailable(err)).toBe(true);
    await exec(legacyHolder, 'ROLLBACK');
    await new Promise<void>((r) => legacyHolder.close(() => r()));
    await new Promise<void>((r) => legacy.close(() => r()));
  });

  it('not for what the request or Herald got wrong', async () => {
    const other = new BetterSqlite3(join(dir, 'free.db'));
    other.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)');
    other.exec("INSERT INTO t (name) VALUES ('taken')");
    const unique = await caught(() => other.exec("INSERT INTO t (name) VALUES ('taken')"));
    expect(isDatabaseUnavailable(unique)).toBe(false);
    expect(isDatabaseUnavailable(await caught(() => other.exec('SELECT * FROM missing')))).toBe(
      false,
    );
    const readOnly = new BetterSqlite3(join(dir, 'free.db'), { readonly: true });
    expect(
      isDatabaseUnavailable(await caught(() => readOnly.exec("INSERT INTO t (name) VALUES ('z')"))),
    ).toBe(false);
    readOnly.close();
    other.close();
    expect(isDatabaseUnavailable(new UniqueConstraintError({}))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
