import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { QueryTypes } from 'sequelize';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { openDatabase, type Database } from '../../../../server/db/database';
import type { BatchKind } from '../../../../server/db/writer';

/** A table of notes written by a mergeable kind; a note 'poison' makes its statement fail. */
const notes: BatchKind<string, number> & { calls: string[][] } = {
  name: 'note',
  calls: [],
  async run({ sql }, items) {
    notes.calls.push([...items]);
    const rows = await sql.all<{ id: number }>(
      `INSERT INTO notes (body) SELECT value FROM json_each(?1) ORDER BY key RETURNING id`,
      [JSON.stringify(items)],
    );
    return rows.map((r) => r.id).sort((a, b) => a - b);
  },
};

// The same behaviour on both write drivers (server/db/database.ts, openWriteConnection).
describe.each(['better-sqlite3', 'sqlite3'] as const)('Writer on %s', (writeDriver) => {
  let dir: string;
  let db: Database;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-writer-'));
    db = await openDatabase(join(dir, 'w.db'), { writeDriver });
    await db.writer.run(({ sql }) =>
      sql.exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL
                  CHECK (body <> 'poison'));
                CREATE TABLE parents (id INTEGER PRIMARY KEY);
                CREATE TABLE children (id INTEGER PRIMARY KEY,
                  parent_id INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED);`),
    );
    notes.calls = [];
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const bodies = async () =>
    (await db.read.all<{ body: string }>('SELECT body FROM notes ORDER BY id')).map((r) => r.body);

  it('submit() merges the items of one kind queued together into one call and one commit', async () => {
    const ids = await Promise.all(['a', 'b', 'c'].map((n) => db.writer.submit(notes, n)));
    expect(notes.calls).toEqual([['a', 'b', 'c']]);
    expect(ids).toHaveLength(3);
    expect(ids[0]).toBeLessThan(ids[1]);
    expect(ids[1]).toBeLessThan(ids[2]);
    expect(await bodies()).toEqual(['a', 'b', 'c']);
  });

  it('the kinds of one cycle run side by side and commit together', async () => {
    // A kind that waits until the other kind of its cycle has started: run one after the
    // other, the cycle would never finish.
    let otherStarted!: () => void;
    const started = new Promise<void>((r) => (otherStarted = r));
    const waiting: BatchKind<string, number> = {
      name: 'waiting',
      async run(tx, items) {
        await started;
        return notes.run(tx, items);
      },
    };
    const other: BatchKind<string, number> = {
      name: 'other',
      async run(tx, items) {
        otherStarted();
        return notes.run(tx, items);
      },
    };
    const ids = await Promise.all([db.writer.submit(waiting, 'w'), db.writer.submit(other, 'o')]);
    expect(ids).toHaveLength(2);
    expect((await bodies()).sort()).toEqual(['o', 'w']);
  });

  it('a failing item of a merged batch is refused alone; the rest of the cycle commits', async () => {
    const results = await Promise.allSettled([
      db.writer.submit(notes, 'a'),
      db.writer.submit(notes, 'poison'),
      db.writer.submit(notes, 'c'),
      db.writer.run(({ sql }) => sql.run(`INSERT INTO parents (id) VALUES (7)`)),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/CHECK constraint/);
    // The merged call failed, failed again under its savepoint, then each item ran on its own.
    expect(notes.calls).toEqual([
      ['a', 'poison', 'c'],
      ['a', 'poison', 'c'],
      ['a'],
      ['poison'],
      ['c'],
    ]);
    expect(await bodies()).toEqual(['a', 'c']);
    expect(await db.read.all('SELECT id FROM parents')).toEqual([{ id: 7 }]);
  });

  it('a failed COMMIT runs every job of the cycle again in a transaction of its own', async () => {
    // A deferred foreign key is only checked at COMMIT: this job makes the commit fail.
    const dangling = db.writer.run(({ sql }) =>
      sql.run(`INSERT INTO children (id, parent_id) VALUES (1, 99)`),
    );
    const results = await Promise.allSettled([
      db.writer.submit(notes, 'a'),
      dangling,
      db.writer.run(({ sql }) => sql.run(`INSERT INTO parents (id) VALUES (1)`)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(await bodies()).toEqual(['a']);
    expect(await db.read.all('SELECT id FROM parents')).toEqual([{ id: 1 }]);
    expect(await db.read.all('SELECT id FROM children')).toEqual([]);
  });

  it('a job is answered only after its cycle committed, and reads never see it before', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const insertedNow = new Promise<void>((r) => (inserted = r));
    let answered = false;
    const job = db.writer
      .run(async ({ sql }) => {
        await sql.run(`INSERT INTO notes (body) VALUES ('held')`);
        inserted();
        await gate;
      })
      .then(() => (answered = true));
    await insertedNow;
    // The cycle is open with the row written: the read connection still sees the last commit.
    expect(await bodies()).toEqual([]);
    // So does a Sequelize SELECT issued outside the job.
    expect(await db.sequelize.query('SELECT body FROM notes', { type: QueryTypes.SELECT })).toEqual(
      [],
    );
    expect(answered).toBe(false);
    release();
    await job;
    expect(answered).toBe(true);
    expect(await bodies()).toEqual(['held']);
  });

  it('a job sees its own writes through the transaction it is given', async () => {
    const seen = await db.writer.run(async ({ sql, transaction }) => {
      await sql.run(`INSERT INTO notes (body) VALUES ('mine')`);
      const [rows] = await db.sequelize.query('SELECT COUNT(*) AS n FROM notes', { transaction });
      return rows;
    });
    expect(seen).toEqual([{ n: 1 }]);
  });

  it('close() writes what is queued and refuses new jobs', async () => {
    const queued = db.writer.submit(notes, 'last');
    await db.writer.close();
    await expect(queued).resolves.toBeGreaterThan(0);
    await expect(db.writer.submit(notes, 'late')).rejects.toThrow(/closed/);
    expect(await bodies()).toEqual(['last']);
  });
});
