import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

import sqlite3 from 'sqlite3';

import { ImportInputError } from './schema';
import type { SourceReader } from './source';
import type { Row } from './values';

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Opens a Message Nest SQLite file read-only: SQLite itself refuses any write to it. */
export async function openSqliteSource(path: string): Promise<SourceReader> {
  const file = resolve(path);
  if (!existsSync(file)) {
    throw new ImportInputError(
      `no such file: ${file}. Give the path of Message Nest's database (conf/database.db in its folder, /app/conf/database.db in Docker)`,
    );
  }
  if (!statSync(file).isFile()) {
    throw new ImportInputError(`${file} is a folder: give the database.db file inside it`);
  }
  const db = await new Promise<sqlite3.Database>((done, fail) => {
    const opened = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) =>
      err ? fail(err) : done(opened),
    );
  }).catch((err: unknown) => {
    throw new ImportInputError(`cannot open ${file}: ${(err as Error).message}`);
  });
  const all = (sql: string) =>
    new Promise<Row[]>((done, fail) =>
      db.all(sql, (err, rows) => (err ? fail(err) : done(rows as Row[]))),
    );
  const description = `the SQLite file ${file}`;
  const read = async (sql: string) => {
    try {
      return await all(sql);
    } catch (err) {
      const message = (err as Error).message;
      if (/SQLITE_NOTADB|not a database/i.test(message)) {
        throw new ImportInputError(
          `${file} is not a SQLite database (${message}): give Message Nest's conf/database.db`,
        );
      }
      throw new ImportInputError(`cannot read ${file}: ${message}`);
    }
  };
  return {
    description,
    async listTables() {
      const rows = await read("SELECT name FROM sqlite_master WHERE type = 'table'");
      return rows.map((r) => String(r.name));
    },
    async listColumns(table) {
      const rows = await read(`PRAGMA table_info(${quote(table)})`);
      return rows.map((r) => String(r.name));
    },
    readAll(table) {
      return read(`SELECT * FROM ${quote(table)}`);
    },
    close() {
      return new Promise<void>((done) => db.close(() => done()));
    },
  };
}
