import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import { afterEach, describe, expect, it } from 'vitest';

import { deliveryThreadMode } from '../../../../server/config/delivery-thread-mode';
import { openDatabase, type Database } from '../../../../server/db/database';
import { WriteTurn } from '../../../../server/db/write-turn';

const tick = () => new Promise((r) => setTimeout(r, 20));

describe('WriteTurn', () => {
  it('serves the parties in the order they asked', async () => {
    const main = new WriteTurn(0);
    const other = new WriteTurn(1, main.buffer);
    const order: string[] = [];
    await main.take();
    const second = other.take().then(() => order.push('other'));
    const third = main.take().then(() => order.push('main again'));
    await tick();
    expect(order).toEqual([]);
    main.give();
    await second;
    expect(order).toEqual(['other']);
    other.give();
    await third;
    expect(order).toEqual(['other', 'main again']);
    main.give();
  });

  it('passes over the turn of a party that ended while waiting for it', async () => {
    const main = new WriteTurn(0);
    const dead = new WriteTurn(1, main.buffer);
    await main.take();
    void dead.take(); // never given: its thread "ended" while waiting
    const next = main.take();
    main.give();
    await tick();
    // The dead ticket is being served: nobody would give it.
    main.abandon(1);
    await next;
    main.give();
    await main.take();
    main.give();
  });

  it('passes the turn on when a party ended while holding it', async () => {
    const main = new WriteTurn(0);
    const dead = new WriteTurn(1, main.buffer);
    await dead.take();
    let taken = false;
    const waiting = main.take().then(() => (taken = true));
    await tick();
    expect(taken).toBe(false);
    main.abandon(1);
    await waiting;
    main.give();
    // Abandoning a party that holds nothing changes nothing.
    main.abandon(1);
    await main.take();
    main.give();
  });

  it('hands the turn between two threads without either blocking its event loop', async () => {
    const main = new WriteTurn(0);
    // The other thread takes the turn as party 1 (the cells of write-turn.ts) and gives it
    // when told to.
    const worker = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const cells = new Int32Array(workerData);
       const ticket = Atomics.add(cells, 0, 1);
       Atomics.store(cells, 5, ticket); Atomics.store(cells, 3, 1);
       parentPort.postMessage('holding');
       parentPort.once('message', () => {
         Atomics.store(cells, 3, 0);
         Atomics.add(cells, 1, 1);
         Atomics.notify(cells, 1);
       });`,
      { eval: true, workerData: main.buffer },
    );
    try {
      await new Promise((r) => worker.once('message', r));
      let taken = false;
      const taking = main.take().then(() => (taken = true));
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      await new Promise((r) => setTimeout(r, 60));
      clearInterval(timer);
      // Still the other thread's turn, and this thread's timers ran meanwhile.
      expect(taken).toBe(false);
      expect(ticks).toBeGreaterThan(0);
      worker.postMessage('give');
      await taking;
      main.give();
    } finally {
      await worker.terminate();
    }
  });
});

describe('a Writer that takes turns', () => {
  let dir: string;
  let db: Database | null = null;
  afterEach(async () => {
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts no cycle while the other party holds the turn', async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-turn-'));
    const turn = new WriteTurn(0);
    db = await openDatabase(join(dir, 't.db'), { writeWorker: 'off', turn });
    await db.writer.run(({ sql }) => sql.exec('CREATE TABLE t (v TEXT)'));
    const other = new WriteTurn(1, turn.buffer);
    await other.take();
    let written = false;
    const job = db.writer
      .run(({ sql }) => sql.exec("INSERT INTO t VALUES ('x')"))
      .then(() => (written = true));
    await tick();
    expect(written).toBe(false);
    other.give();
    await job;
    expect(await db.read.all('SELECT v FROM t')).toEqual([{ v: 'x' }]);
  });
});

describe('HERALD_DELIVERY_THREAD', () => {
  it('is off unless set, and refuses anything but auto, on or off', () => {
    expect(deliveryThreadMode(undefined)).toBe('off');
    expect(deliveryThreadMode('')).toBe('off');
    expect(deliveryThreadMode('auto')).toBe('auto');
    expect(deliveryThreadMode('on')).toBe('on');
    expect(() => deliveryThreadMode('yes')).toThrow(
      /HERALD_DELIVERY_THREAD must be auto, on or off/,
    );
  });
});
