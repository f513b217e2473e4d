import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

import type { Retention } from '../../config/settings-schema';
import type { HeraldEvents } from '../../events';
import { createLogger } from '../../lib/logger';
import type { WriteLock } from '../writer';
import { compactHistoryTotals, deleteCounting, onPostgres } from '../postgres/history-postgres';
import { dbTime } from './history-search';

const log = createLogger('retention');

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows deleted per write transaction: short enough that sends never wait long for the lock. */
export const PRUNE_BATCH_ROWS = 500;
/** How long a closed dedup window is kept, so a late repeat still learns its run's count. */
export const DEDUP_WINDOWS_KEPT_MS = 7 * DAY_MS;
/** How long a channel's daily send counts are kept. */
const DAY_COUNTS_KEPT_MS = 7 * DAY_MS;
/** Pages returned to the file system per write transaction (incremental auto-vacuum only). */
const VACUUM_BATCH_PAGES = 2000;

/** Deliveries in these states still have work to do: their sends are never pruned. */
const UNFINISHED = `('pending', 'queued', 'sending', 'retrying')`;

/** The moment before which `retention` prunes hosted messages (when messagesDays is set). */
const messagesCutoff = (retention: Retention, now: number): Date =>
  new Date(now - retention.messagesDays * DAY_MS);

export interface PruneResult {
  sends: number;
  deliveries: number;
  attempts: number;
  hostedMessages: number;
  auditEntries: number;
}

/**
 * Deletes sends (with their deliveries and attempts) and hosted messages older than the
 * retention settings, a batch per write transaction, yielding between batches. Index entries,
 * counters and roll-ups follow through the triggers.
 */
export async function pruneHistory(
  sequelize: Sequelize,
  writeLock: WriteLock,
  retention: Retention,
  now: number,
): Promise<PruneResult> {
  const result: PruneResult = {
    sends: 0,
    deliveries: 0,
    attempts: 0,
    hostedMessages: 0,
    auditEntries: 0,
  };
  if (retention.sendsDays > 0) {
    const cutoff = dbTime(new Date(now - retention.sendsDays * DAY_MS));
    for (;;) {
      const batch = await inTransaction(sequelize, writeLock, (t) =>
        pruneSends(sequelize, t, cutoff),
      );
      result.sends += batch.sends;
      result.deliveries += batch.deliveries;
      result.attempts += batch.attempts;
      if (batch.sends < PRUNE_BATCH_ROWS) break;
      await yieldToRequests();
    }
  }
  if (retention.messagesDays > 0) {
    const cutoff = dbTime(messagesCutoff(retention, now));
    for (;;) {
      const n = await inTransaction(sequelize, writeLock, (transaction) =>
        deleted(
          sequelize,
          `DELETE FROM hosted_messages WHERE id IN (SELECT id FROM hosted_messages
           WHERE created_at < :cutoff ORDER BY id LIMIT ${PRUNE_BATCH_ROWS})`,
          { cutoff },
          transaction,
        ),
      );
      result.hostedMessages += n;
      if (n < PRUNE_BATCH_ROWS) break;
      await yieldToRequests();
    }
  }
  if (retention.auditDays > 0) {
    const before = now - retention.auditDays * DAY_MS;
    for (;;) {
      const n = await inTransaction(sequelize, writeLock, (transaction) =>
        deleted(
          sequelize,
          `DELETE FROM audit_entries WHERE id IN (SELECT id FROM audit_entries
           WHERE at < :before ORDER BY at, id LIMIT ${PRUNE_BATCH_ROWS})`,
          { before },
          transaction,
        ),
      );
      result.auditEntries += n;
      if (n < PRUNE_BATCH_ROWS) break;
      await yieldToRequests();
    }
  }
  // Dedup windows closed a week ago: the next send with such a key is told of its suppressed
  // run no more (docs/send-api.md "Dedup"). Whatever the retention: they are not history.
  await writeLock.run(({ transaction }) =>
    sequelize.query('DELETE FROM dedup_windows WHERE window_until < :before', {
      replacements: { before: now - DEDUP_WINDOWS_KEPT_MS },
      transaction,
    }),
  );
  // Digests closed before the sends' retention: the sends they list are pruned (or will be) with
  // it. Open digests stay, whatever their age: their sends are still to be delivered.
  if (retention.sendsDays > 0) {
    const before = now - retention.sendsDays * DAY_MS;
    await writeLock.run(async ({ transaction }) => {
      await sequelize.query(
        `DELETE FROM digest_sends WHERE digest_id IN
           (SELECT id FROM digests WHERE status = 'closed' AND closed_at < :before)`,
        { replacements: { before }, transaction },
      );
      await sequelize.query(`DELETE FROM digests WHERE status = 'closed' AND closed_at < :before`, {
        replacements: { before },
        transaction,
      });
    });
  }
  // Daily send counts (server/channels/day-counts.ts) only ever count today: a week back is kept
  // for reading, whatever the clock's zone.
  await writeLock.run(({ transaction }) =>
    sequelize.query('DELETE FROM channel_day_counts WHERE day < :before', {
      replacements: { before: new Date(now - DAY_COUNTS_KEPT_MS).toISOString().slice(0, 10) },
      transaction,
    }),
  );
  if (onPostgres(sequelize)) {
    // Every hour, pruned or not: the triggers append a few rows per write cycle.
    await writeLock.run(({ transaction }) => compactHistoryTotals(sequelize, transaction));
  }
  if (result.auditEntries > 0) log.info(`pruned ${result.auditEntries} audit log entries`);
  if (result.sends + result.hostedMessages > 0) {
    await writeLock.run(async () => {
      await sequelize.query('DELETE FROM send_day_rollup WHERE n = 0');
      await sequelize.query('DELETE FROM delivery_day_rollup WHERE n = 0');
    });
    await returnFreePages(sequelize, writeLock);
    log.info(
      `pruned ${result.sends} sends (${result.deliveries} deliveries, ${result.attempts} attempts) and ${result.hostedMessages} hosted messages`,
    );
  }
  return result;
}

async function pruneSends(sequelize: Sequelize, transaction: Transaction, cutoff: string) {
  // Chosen inside the transaction: a delivery retried a moment ago keeps its send.
  const rows = await sequelize.query<{ id: number }>(
    `SELECT s.id FROM sends s WHERE s.created_at < :cutoff
       AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.send_id = s.id AND d.status IN ${UNFINISHED})
     ORDER BY s.id LIMIT ${PRUNE_BATCH_ROWS}`,
    { type: QueryTypes.SELECT, replacements: { cutoff }, transaction },
  );
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return { sends: 0, deliveries: 0, attempts: 0 };
  const run = (sql: string) => deleted(sequelize, sql, { ids }, transaction);
  const attempts = await run(
    `DELETE FROM delivery_attempts WHERE delivery_id IN
       (SELECT id FROM deliveries WHERE send_id IN (:ids))`,
  );
  const deliveries = await run('DELETE FROM deliveries WHERE send_id IN (:ids)');
  const sends = await run('DELETE FROM sends WHERE id IN (:ids)');
  return { sends, deliveries, attempts };
}

/**
 * A database created with auto_vacuum=INCREMENTAL (every new one, see migrate.ts) gives freed
 * pages back in small steps; an older database keeps them on its free list and reuses them.
 */
async function returnFreePages(sequelize: Sequelize, writeLock: WriteLock): Promise<void> {
  // PostgreSQL's autovacuum makes dead rows' space reusable by itself.
  if (onPostgres(sequelize)) return;
  if ((await pragma(sequelize, 'auto_vacuum')) !== 2) return;
  const free = await pragma(sequelize, 'freelist_count');
  for (let i = 0; i < Math.ceil(free / VACUUM_BATCH_PAGES); i++) {
    await writeLock.run(() => sequelize.query(`PRAGMA incremental_vacuum(${VACUUM_BATCH_PAGES})`));
    await yieldToRequests();
  }
}

export async function pragma(sequelize: Sequelize, name: string): Promise<number> {
  const [row] = await sequelize.query<Record<string, number>>(`PRAGMA ${name}`, {
    type: QueryTypes.SELECT,
  });
  return Number(row ? Object.values(row)[0] : 0);
}

/** Runs a DELETE in the transaction and says how many rows it removed. */
async function deleted(
  sequelize: Sequelize,
  sql: string,
  replacements: Record<string, unknown>,
  transaction: Transaction,
): Promise<number> {
  if (onPostgres(sequelize)) return deleteCounting(sequelize, sql, replacements, transaction);
  await sequelize.query(sql, { replacements, transaction });
  return changes(sequelize, transaction);
}

async function changes(sequelize: Sequelize, transaction: Transaction): Promise<number> {
  const [row] = await sequelize.query<{ n: number }>('SELECT changes() AS n', {
    type: QueryTypes.SELECT,
    transaction,
  });
  return Number(row?.n ?? 0);
}

function inTransaction<T>(
  sequelize: Sequelize,
  writeLock: WriteLock,
  fn: (t: Transaction) => Promise<T>,
): Promise<T> {
  // The writer's cycle is the transaction: a job joins it rather than opening its own.
  return writeLock.run(({ transaction }) => fn(transaction));
}

function yieldToRequests(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const inFlight = new WeakMap<Sequelize, Promise<unknown>>();

export interface PruneDeps {
  sequelize: Sequelize;
  writeLock: WriteLock;
  /** Told of hosted messages pruned (messagesPruned), for the consoles and the desktop badge. */
  events: HeraldEvents;
  retention(): Retention;
  now(): number;
}

/**
 * pruneHistory, one run at a time per database: the hourly job and "Prune now" queue up. A run
 * that deleted hosted messages says so once, after its last batch committed.
 */
export function pruneHistorySerially(deps: PruneDeps): Promise<PruneResult> {
  const { sequelize, writeLock, events } = deps;
  const run = async () => {
    const retention = deps.retention();
    const now = deps.now();
    const result = await pruneHistory(sequelize, writeLock, retention, now);
    if (result.hostedMessages > 0) {
      events.emit('messagesPruned', {
        count: result.hostedMessages,
        before: messagesCutoff(retention, now).toISOString(),
      });
    }
    return result;
  };
  const previous = inFlight.get(sequelize) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(run);
  inFlight.set(sequelize, next);
  return next;
}
