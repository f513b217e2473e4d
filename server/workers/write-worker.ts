/**
 * The SQLite write worker: a thread with its own write connection to the database file that
 * runs the hot path's write cycles (accepting sends, recording attempts) so that SQLite's share
 * of a send — a quarter to a third of the main thread under load, full-text indexing and
 * roll-up triggers included — runs on another core while the main thread parses and answers
 * requests (docs/architecture.md, "The write worker").
 *
 * It writes only when the main thread's Writer hands it a cycle and waits for the answer, so
 * the process still has one writer at a time and SQLite's lock is never contended. Failure
 * isolation is the Writer's own: the worker runs a Writer of its own over its connection.
 */
import { parentPort, workerData } from 'node:worker_threads';

import { DELIVERY_PROGRAMS, type DeliveryProgramName } from '../queue/delivery-programs';
import { connectionExecutor, SqliteConnection } from '../db/sqlite-connection';
import type { SqlExecutor } from '../db/sql';
import { Writer, type BatchKind } from '../db/writer';
import {
  toWire,
  type FromWorker,
  type RemoteGroup,
  type ToWorker,
  type WireSettled,
  type WorkerStart,
} from '../db/write-worker/protocol';

const port = parentPort;
if (!port) throw new Error('write-worker.ts runs as a worker thread (remote-cycles.ts starts it)');
const post = (message: FromWorker) => port.postMessage(message);

const start = workerData as WorkerStart;
let conn: SqliteConnection;
let sql: SqlExecutor;
try {
  conn = new SqliteConnection(start.dbFile, start.busyTimeoutMs);
  sql = connectionExecutor(conn);
  // Per connection, as on the main thread's write connection (database.ts).
  conn.db.exec('PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON');
} catch (err) {
  post({ type: 'open-failed', error: toWire(err) });
  throw err;
}

// The worker's jobs are statements only; no Sequelize transaction exists on this thread.
const writer = new Writer(sql, () => ({}) as never);

function kindFor(program: string, moment: unknown): BatchKind<unknown, unknown> {
  const run = DELIVERY_PROGRAMS[program as DeliveryProgramName] as
    ((s: SqlExecutor, items: readonly unknown[], at: unknown) => Promise<unknown[]>) | undefined;
  if (!run) throw new Error(`the write worker has no program "${program}"`);
  return { name: program, run: (tx, items) => run(tx.sql, items, moment) };
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'close') {
    void writer.close().finally(() => {
      conn.close();
      post({ type: 'closed' });
      port.close();
    });
    return;
  }
  // Every item is queued in this turn, so they share one cycle of the worker's Writer.
  const groups = (JSON.parse(message.groups) as RemoteGroup[]).map((group) => {
    let kind: BatchKind<unknown, unknown>;
    try {
      kind = kindFor(group.program, group.moment);
    } catch (err) {
      return group.items.map(() => Promise.reject(err));
    }
    return group.items.map((item) => writer.submit(kind, item));
  });
  void Promise.all(
    groups.map((promises) =>
      Promise.allSettled(promises).then((settled) =>
        settled.map((s): WireSettled =>
          s.status === 'fulfilled'
            ? { ok: true, value: s.value }
            : { ok: false, error: toWire(s.reason) },
        ),
      ),
    ),
  ).then((results) => post({ type: 'done', id: message.id, results: JSON.stringify(results) }));
});

post({ type: 'ready' });
