import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  DataTypes,
  QueryTypes,
  UniqueConstraintError,
  type ModelStatic,
  type Model,
} from 'sequelize';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { openDatabase, type Database } from '../../../../server/db/database';

/**
 * Sequelize's sqlite dialect speaks node-sqlite3's API; on better-sqlite3 it goes through
 * CallbackConnection (server/db/sqlite-connection.ts). What the models rely on must come out the
 * same on both drivers: ids, change counts, bound parameters, constraint errors.
 */
describe.each(['better-sqlite3', 'sqlite3'] as const)('model writes on %s', (writeDriver) => {
  let dir: string;
  let db: Database;
  let Item: ModelStatic<Model>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-wconn-'));
    db = await openDatabase(join(dir, 'w.db'), { writeDriver });
    Item = db.sequelize.define('item', {
      name: { type: DataTypes.STRING, allowNull: false, unique: true },
      done: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      dueAt: { type: DataTypes.DATE },
    });
    await db.writer.run(() => Item.sync());
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says which driver it runs on (backups need better-sqlite3)', () => {
    expect(db.driver).toBe(writeDriver);
  });

  it('create returns the new id; update and destroy count the rows they changed', async () => {
    const due = new Date('2026-11-23T10:00:00.000Z');
    const a = await db.writer.run(() => Item.create({ name: 'a', done: true, dueAt: due }));
    const b = await db.writer.run(() => Item.create({ name: 'b' }));
    expect(a.get('id')).toBe(1);
    expect(b.get('id')).toBe(2);

    const [updated] = await db.writer.run(() => Item.update({ done: true }, { where: {} }));
    expect(updated).toBe(2);
    const back = await Item.findByPk(1);
    expect(back?.get('done')).toBe(true);
    expect((back?.get('dueAt') as Date).toISOString()).toBe(due.toISOString());

    expect(await db.writer.run(() => Item.destroy({ where: { name: 'b' } }))).toBe(1);
    expect(await Item.count()).toBe(1);
  });

  it('a duplicate is a UniqueConstraintError naming the field, and nothing else is lost', async () => {
    await db.writer.run(() => Item.create({ name: 'same' }));
    const duplicate = db.writer.run(() => Item.create({ name: 'same' }));
    const other = db.writer.run(() => Item.create({ name: 'other' }));
    const err = await duplicate.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UniqueConstraintError);
    expect((err as UniqueConstraintError).fields).toEqual(['name']);
    await expect(other).resolves.toBeTruthy();
    expect((await Item.findAll({ order: [['id', 'ASC']] })).map((i) => i.get('name'))).toEqual([
      'same',
      'other',
    ]);
  });

  it('an instance update that shares a cycle with a failing job is written, not lost', async () => {
    // Run again after a rollback, row.update() would find nothing changed and write nothing:
    // jobs that touch instances run once, each under a savepoint (writer.ts, JobOptions).
    const row = await db.writer.run(() => Item.create({ name: 'kept' }));
    await db.writer.run(() => Item.create({ name: 'taken' }));
    const results = await Promise.allSettled([
      db.writer.run(() => row.update({ done: true })),
      db.writer.run(() => Item.create({ name: 'taken' })),
      db.writer.run(() => Item.create({ name: 'third' })),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await Item.findByPk(row.get('id') as number))?.get('done')).toBe(true);
    expect((await Item.findAll({ order: [['id', 'ASC']] })).map((i) => i.get('name'))).toEqual([
      'kept',
      'taken',
      'third',
    ]);
  });

  it('raw queries bind $1-style and named parameters', async () => {
    await db.writer.run(({ transaction }) =>
      db.sequelize.query(
        'INSERT INTO items (name, done, created_at, updated_at) VALUES ($1, $2, $3, $3)',
        {
          bind: ['bound', true, '2026-11-23 10:00:00.000 +00:00'],
          transaction,
        },
      ),
    );
    const rows = await db.sequelize.query<{ name: string; done: number }>(
      'SELECT name, done FROM items WHERE name = $name',
      { bind: { name: 'bound' }, type: QueryTypes.SELECT },
    );
    expect(rows).toEqual([{ name: 'bound', done: 1 }]);
  });

  it('a text of several statements: better-sqlite3 runs them all, node-sqlite3 only the first', async () => {
    await db.writer.run(({ transaction }) =>
      db.sequelize.query(
        `INSERT INTO items (name, done, created_at, updated_at) VALUES ('x', 0, 'now', 'now');
         INSERT INTO items (name, done, created_at, updated_at) VALUES ('y', 0, 'now', 'now');`,
        { transaction },
      ),
    );
    expect(await Item.count()).toBe(writeDriver === 'better-sqlite3' ? 2 : 1);
  });
});
