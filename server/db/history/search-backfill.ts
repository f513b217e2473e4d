import { QueryTypes, type Sequelize } from 'sequelize';

import { createLogger } from '../../lib/logger';
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
 * Indexes the rows that existed before the search index did (a database from an older
 * version, a restored backup): search_backfill holds the id range still to do. Runs after the
 * server listens, one short write transaction per batch; searches scan the range not yet
 * indexed meanwhile, so they stay complete.
 */
export class SearchBackfill {
  private stopped = false;
  private running: Promise<void> | null = null;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly writeLock: WriteLock,
  ) {}

  start(): Promise<void> {
    this.running ??= this.runAll().catch((err: unknown) => {
      if (!this.stopped) log.error(`search indexing stopped: ${String(err)}`);
    });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async runAll(): Promise<void> {
    for (const source of Object.keys(SOURCES) as SourceName[]) {
      await this.run(source);
      if (this.stopped) return;
    }
  }

  private async run(source: SourceName): Promise<void> {
    const state = await this.state(source);
    if (!state || state.done >= state.until) return;
    const { label, insert } = SOURCES[source];
    const total = await this.count(source, state.done, state.until);
    log.info(`indexing ${total} ${label} for search (ids ${state.done + 1}..${state.until})`);
    let done = state.done;
    let indexed = 0;
    let lastReport = Date.now();
    while (done < state.until && !this.stopped) {
      const to = await this.batchEnd(source, done, state.until);
      // The writer's cycle is the transaction: a job joins it rather than opening its own.
      indexed += await this.writeLock.run(async ({ transaction }) => {
        await this.sequelize.query(insert, { replacements: { from: done, to }, transaction });
        await this.sequelize.query('UPDATE search_backfill SET done = :to WHERE source = :source', {
          replacements: { to, source },
          transaction,
        });
        return this.count(source, done, to);
      });
      done = to;
      if (Date.now() - lastReport > 5000 || done >= state.until) {
        lastReport = Date.now();
        log.info(`indexed ${indexed} of ${total} ${label} for search`);
      }
      // Let requests waiting behind this batch run before the next one.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private async state(source: SourceName) {
    const [row] = await this.sequelize.query<{ done: number; until: number }>(
      'SELECT done, until FROM search_backfill WHERE source = :source',
      { type: QueryTypes.SELECT, replacements: { source } },
    );
    return row ? { done: Number(row.done), until: Number(row.until) } : null;
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
