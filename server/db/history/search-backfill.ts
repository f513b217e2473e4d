import { QueryTypes, type Sequelize } from 'sequelize';

import { createLogger } from '../../lib/logger';
import { onPostgres } from '../postgres/history-postgres';
import type { WriteLock } from '../writer';

const log = createLogger('search');

/** Rows indexed per write transaction: a few milliseconds of lock, then sends go first again. */
export const BACKFILL_BATCH_ROWS = 2000;

const SOURCES = {
  hosted_messages: {
    label: 'hosted messages',
    insert: `INSERT INTO hosted_messages_fts (rowid, title, content)
      SELECT id, title || char(1), content || char(1) FROM hosted_messages
      WHERE id > :from AND id <= :to`,
  },
  sends: {
    label: 'sends',
    insert: `INSERT INTO sends_fts (rowid, title, text, html, markdown)
      SELECT id, title || char(1), text || char(1), html || char(1), markdown || char(1)
      FROM sends WHERE id > :from AND id <= :to`,
  },
} as const;

type SourceName = keyof typeof SOURCES;

/**
 * The last id of a source's range still to index, as SQL over its search_backfill row `b`. On
 * SQLite new sends are indexed after the fact, by the indexer below (migration
 * 2026-11-28-1100-lighter-hot-path), so every send past `done` waits; hosted messages are
 * indexed by their INSERT trigger, so only the backfill's range does. PostgreSQL's trigram
 * index is kept by PostgreSQL itself.
 */
export function pendingUntil(sequelize: Sequelize, source: SourceName): string {
  if (source === 'sends' && !onPostgres(sequelize)) {
    return 'max(b.until, (SELECT coalesce(max(id), 0) FROM sends))';
  }
  return 'b.until';
}

/**
 * A source's indexing progress: ids up to `done` are indexed, those after it up to `until`
 * are not yet (nothing waits when `done >= until`); null before the history index exists.
 */
export async function indexingRange(
  sequelize: Sequelize,
  source: SourceName,
): Promise<{ done: number; until: number } | null> {
  const [row] = await sequelize.query<{ done: number; until: number }>(
    `SELECT done, ${pendingUntil(sequelize, source)} AS until FROM search_backfill b
     WHERE source = :source`,
    { type: QueryTypes.SELECT, replacements: { source } },
  );
  return row ? { done: Number(row.done), until: Number(row.until) } : null;
}

/** How often the indexer looks for new sends to index. */
export const FOLLOW_INTERVAL_MS = 1000;
/**
 * New sends are indexed once their arrival pauses for an interval, so a burst is accepted
 * without indexing in between; under load without pause, once this many wait or the oldest
 * has waited FOLLOW_MAX_WAIT_MS. Searches scan the ones waiting (history-search.ts).
 */
export const FOLLOW_MAX_PENDING = 20_000;
export const FOLLOW_MAX_WAIT_MS = 30_000;

/**
 * Indexes the rows that existed before the search index did (a database from an older
 * version, a restored backup): search_backfill holds the id range still to do. Runs after the
 * server listens, one short write transaction per batch; searches scan the range not yet
 * indexed meanwhile, so they stay complete. On SQLite it then follows new sends, which their
 * INSERT no longer indexes, so that the accept's write cycle leaves the trigram index alone.
 */
export class SearchBackfill {
  private stopped = false;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private following: Promise<void> | null = null;
  /** The newest send id seen at the last look, and when sends were last indexed. */
  private lastSeen = -1;
  private lastIndexedAt = Date.now();

  constructor(
    private readonly sequelize: Sequelize,
    private readonly writeLock: WriteLock,
  ) {}

  start(): Promise<void> {
    this.running ??= this.runAll()
      .then(() => this.follow())
      .catch((err: unknown) => {
        if (!this.stopped) log.error(`search indexing stopped: ${String(err)}`);
      });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.following;
  }

  private follow(): void {
    if (this.stopped || onPostgres(this.sequelize)) return;
    this.timer = setTimeout(() => {
      this.following = this.followOnce()
        .catch((err: unknown) => log.error(`indexing new sends failed: ${String(err)}`))
        .finally(() => {
          this.following = null;
          this.follow();
        });
    }, FOLLOW_INTERVAL_MS);
    this.timer.unref();
  }

  private async followOnce(): Promise<void> {
    const state = await indexingRange(this.sequelize, 'sends');
    if (!state || state.done >= state.until) {
      this.lastIndexedAt = Date.now();
      return;
    }
    const quiet = state.until === this.lastSeen;
    this.lastSeen = state.until;
    const due =
      quiet ||
      state.until - state.done >= FOLLOW_MAX_PENDING ||
      Date.now() - this.lastIndexedAt >= FOLLOW_MAX_WAIT_MS;
    if (!due) return;
    await this.run('sends', true);
    this.lastIndexedAt = Date.now();
  }

  private async runAll(): Promise<void> {
    for (const source of Object.keys(SOURCES) as SourceName[]) {
      await this.run(source);
      if (this.stopped) return;
    }
  }

  private async run(source: SourceName, quietly = false): Promise<void> {
    const state = await indexingRange(this.sequelize, source);
    if (!state || state.done >= state.until) return;
    const { label, insert } = SOURCES[source];
    const total = await this.count(source, state.done, state.until);
    // Following new sends is routine: only the backfill of older rows is worth a log line.
    const info = quietly ? (_: string) => undefined : (line: string) => log.info(line);
    info(`indexing ${total} ${label} for search (ids ${state.done + 1}..${state.until})`);
    let done = state.done;
    let indexed = 0;
    let lastReport = Date.now();
    while (done < state.until && !this.stopped) {
      const to = await this.batchEnd(source, done, state.until);
      // The writer's cycle is the transaction: a job joins it rather than opening its own.
      indexed += await this.writeLock.run(async ({ transaction }) => {
        await this.sequelize.query(insert, { replacements: { from: done, to }, transaction });
        await this.sequelize.query(
          `UPDATE search_backfill SET done = :to, until = CASE WHEN until < :to THEN :to ELSE until END
           WHERE source = :source`,
          { replacements: { to, source }, transaction },
        );
        return this.count(source, done, to);
      });
      done = to;
      if (Date.now() - lastReport > 5000 || done >= state.until) {
        lastReport = Date.now();
        info(`indexed ${indexed} of ${total} ${label} for search`);
      }
      // Let requests waiting behind this batch run before the next one.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The id that ends a batch of BACKFILL_BATCH_ROWS rows (ids can be sparse after deletes). */
  private async batchEnd(source: SourceName, done: number, until: number): Promise<number> {
    const [row] = await this.sequelize.query<{ id: number }>(
      `SELECT id FROM ${source} WHERE id > :done AND id <= :until ORDER BY id
       LIMIT 1 OFFSET ${BACKFILL_BATCH_ROWS - 1}`,
      { type: QueryTypes.SELECT, replacements: { done, until } },
    );
    return row ? Number(row.id) : until;
  }

  private async count(source: SourceName, from: number, to: number): Promise<number> {
    const [row] = await this.sequelize.query<{ n: number }>(
      `SELECT count(*) AS n FROM ${source} WHERE id > :from AND id <= :to`,
      { type: QueryTypes.SELECT, replacements: { from, to } },
    );
    return Number(row?.n ?? 0);
  }
}
