import { QueryTypes, type Sequelize } from 'sequelize';

import { onPostgres, searchCondition } from '../postgres/history-postgres';
import { READ_BY_READER, unreadPage, type ReadMark } from './message-reads';
import { indexingRange } from './search-backfill';
import { COUNT_CAP, MAX_PREFIX_TERMS, ftsPhrase, planSearch, type SearchPlan } from './search-plan';

/**
 * The SQL of history lists (hosted messages and the send log): ids of one page, newest first,
 * and a total that never costs more than counting COUNT_CAP + 1 matches. Everything
 * SQLite-specific of search lives here; a PostgreSQL twin answers the same functions.
 */

export interface IdPage {
  ids: number[];
  total: number;
  /** true when more than `total` rows match: the count stopped at COUNT_CAP. */
  totalIsCapped: boolean;
}

export interface PageWindow {
  limit: number;
  offset: number;
}

/** A searchable history table: its full-text index, term list and text columns. */
interface Source {
  table: 'hosted_messages' | 'sends';
  fts: string;
  terms: string;
  columns: string[];
}

const MESSAGES: Source = {
  table: 'hosted_messages',
  fts: 'hosted_messages_fts',
  terms: 'hosted_messages_fts_terms',
  columns: ['title', 'content'],
};
const SENDS: Source = {
  table: 'sends',
  fts: 'sends_fts',
  terms: 'sends_fts_terms',
  columns: ['title', 'text', 'html', 'markdown'],
};

/** A condition on the base table `b`, with its named parameters. */
interface Condition {
  sql: string;
  params: Record<string, unknown>;
}

export interface SendFilter {
  q?: string;
  api?: string;
  taskId?: number;
  templateId?: number;
  status?: string;
  from?: Date;
  to?: Date;
}

/**
 * The reader's "priority first": 5, then 4, then everything else (1–3 and none alike: only
 * 4–5 are marked), each newest first. A sort over the whole filtered set, as no index serves
 * it; newest-first stays the default that pages along the primary key.
 */
const PRIORITY_FIRST = 'CASE WHEN b.priority >= 4 THEN b.priority ELSE 0 END DESC, ';

/** Whose read state the unread filter follows: the signed-in person, their watermark and count. */
export interface MessageReader {
  userId: number;
  mark: ReadMark;
  unreadCount: number;
}

export async function listMessageIds(
  sequelize: Sequelize,
  filter: { q?: string; unread?: boolean; sort?: 'newest' | 'priority' },
  page: PageWindow,
  reader: MessageReader,
): Promise<IdPage> {
  const first = filter.sort === 'priority' ? PRIORITY_FIRST : '';
  if (!filter.q) {
    if (!filter.unread)
      return unfilteredPage(sequelize, MESSAGES, [], 'hosted_messages', page, first);
    // The count is the reader's, exact and free; the page merges two index-driven sides.
    const ids = await unreadPage(sequelize, reader.userId, reader.mark, page, first !== '');
    return { ids, total: reader.unreadCount, totalIsCapped: false };
  }
  const conditions: Condition[] = filter.unread
    ? [
        {
          sql: `NOT ${READ_BY_READER}`,
          params: { reader: reader.userId, w: reader.mark.readThrough },
        },
      ]
    : [];
  return searchPage(sequelize, MESSAGES, filter.q, conditions, page, first);
}

export async function listSendIds(
  sequelize: Sequelize,
  filter: SendFilter,
  page: PageWindow,
): Promise<IdPage> {
  const conditions: Condition[] = [];
  if (filter.api) conditions.push({ sql: 'b.api = :api', params: { api: filter.api } });
  if (filter.taskId)
    conditions.push({ sql: 'b.task_id = :taskId', params: { taskId: filter.taskId } });
  if (filter.templateId)
    conditions.push({
      sql: 'b.template_id = :templateId',
      params: { templateId: filter.templateId },
    });
  if (filter.status) conditions.push(sendStatusCondition(filter.status));
  // created_at is stored as 'YYYY-MM-DD HH:MM:SS.sss +00:00', which sorts as text.
  if (filter.from)
    conditions.push({ sql: 'b.created_at >= :from', params: { from: dbTime(filter.from) } });
  if (filter.to) conditions.push({ sql: 'b.created_at <= :to', params: { to: dbTime(filter.to) } });
  if (!filter.q) return unfilteredPage(sequelize, SENDS, conditions, 'sends', page);
  return searchPage(sequelize, SENDS, filter.q, conditions, page);
}

/**
 * The log's status, as LogService names it: a `pending` send with a delivery waiting for its
 * retry reads `retrying`, so `pending` leaves those out. Pending sends are few, and each is
 * checked through the deliveries' send_id index.
 */
function sendStatusCondition(status: string): Condition {
  const retrying = `EXISTS (SELECT 1 FROM deliveries d WHERE d.send_id = b.id AND d.status = 'retrying')`;
  if (status === 'retrying') return { sql: `b.status = 'pending' AND ${retrying}`, params: {} };
  if (status === 'pending') return { sql: `b.status = 'pending' AND NOT ${retrying}`, params: {} };
  return { sql: 'b.status = :status', params: { status } };
}

export function dbTime(d: Date): string {
  return `${d.toISOString().replace('T', ' ').replace('Z', '')} +00:00`;
}

async function counter(sequelize: Sequelize, name: string): Promise<number> {
  const rows = await select<{ n: number }>(
    sequelize,
    // A sum: on PostgreSQL a counter is the deltas its triggers appended (history-index-schema.ts).
    'SELECT sum(n) AS n FROM history_counters WHERE name = :name',
    { name },
  );
  return Number(rows[0]?.n ?? 0);
}

async function unfilteredPage(
  sequelize: Sequelize,
  source: Source,
  conditions: Condition[],
  counterName: string,
  page: PageWindow,
  first = '',
): Promise<IdPage> {
  const where = whereOf(conditions);
  const ids = await select<{ id: number }>(
    sequelize,
    `SELECT b.id FROM ${source.table} b ${where.sql} ORDER BY ${first}b.id DESC LIMIT :limit OFFSET :offset`,
    { ...where.params, ...page },
  );
  // Without a filter, the counters are exact and free.
  if (conditions.length === 0) {
    return {
      ids: ids.map((r) => r.id),
      total: await counter(sequelize, counterName),
      totalIsCapped: false,
    };
  }
  return {
    ids: ids.map((r) => r.id),
    ...(await cappedCount(sequelize, `SELECT 1 FROM ${source.table} b ${where.sql}`, where.params)),
  };
}

async function searchPage(
  sequelize: Sequelize,
  source: Source,
  q: string,
  conditions: Condition[],
  page: PageWindow,
  first = '',
): Promise<IdPage> {
  const matches = onPostgres(sequelize)
    ? {
        from: `FROM ${source.table} b`,
        id: 'b.id',
        params: {},
        condition: searchCondition(source.table, q),
      }
    : await matchingRows(sequelize, source, planSearch(q));
  const where = whereOf([...conditions, ...(matches.condition ? [matches.condition] : [])]);
  const from = `${matches.from} ${where.sql}`;
  const params = { ...matches.params, ...where.params };
  const ids = await select<{ id: number }>(
    sequelize,
    `SELECT ${matches.id} AS id ${from} ORDER BY ${first}${matches.id} DESC LIMIT :limit OFFSET :offset`,
    { ...params, ...page },
  );
  return {
    ids: ids.map((r) => r.id),
    ...(await cappedCount(sequelize, `SELECT 1 ${from}`, params)),
  };
}

/**
 * The FROM clause (and id expression) of the rows a plan matches. Index lookups drive the
 * query from the full-text table in rowid order, so a page stops after its rows; rows the
 * backfill has not indexed yet are scanned with LIKE, so results are complete meanwhile.
 */
async function matchingRows(
  sequelize: Sequelize,
  source: Source,
  plan: SearchPlan,
): Promise<{ from: string; id: string; params: Record<string, unknown>; condition?: Condition }> {
  if (plan.kind === 'scan') {
    return {
      from: `FROM ${source.table} b`,
      id: 'b.id',
      params: {},
      condition: likeOf(source, 'b', plan.like),
    };
  }
  let match: string;
  if (plan.kind === 'phrase') match = plan.match;
  else {
    const terms = await select<{ term: string }>(
      sequelize,
      `SELECT term FROM ${source.terms} WHERE term >= :from AND term < :below LIMIT :cap`,
      { from: plan.from, below: plan.below, cap: MAX_PREFIX_TERMS + 1 },
    );
    if (terms.length > MAX_PREFIX_TERMS) {
      return matchingRows(sequelize, source, { kind: 'scan', like: likeFromPrefixPlan(plan) });
    }
    // No indexed trigram starts with the query: only not-yet-indexed rows can match.
    match = terms.length === 0 ? '' : terms.map((t) => ftsPhrase(t.term)).join(' OR ');
  }
  const pending = await backfillPending(sequelize, source.table);
  const rawLike = plan.kind === 'phrase' ? likeFromPhrase(plan.match) : likeFromPrefixPlan(plan);
  if (pending) {
    const scanLike = likeOf(source, 'p', rawLike);
    const indexed = match
      ? `SELECT rowid AS id FROM ${source.fts} WHERE ${source.fts} MATCH :match UNION ALL `
      : '';
    return {
      from: `FROM (${indexed}SELECT p.id FROM ${source.table} p WHERE p.id > :pendingFrom AND p.id <= :pendingTo AND ${scanLike.sql}) f CROSS JOIN ${source.table} b ON b.id = f.id`,
      id: 'f.id',
      params: { match, pendingFrom: pending.done, pendingTo: pending.until, ...scanLike.params },
    };
  }
  if (!match)
    return {
      from: `FROM ${source.table} b`,
      id: 'b.id',
      params: {},
      condition: { sql: '0', params: {} },
    };
  return {
    from: `FROM ${source.fts} f CROSS JOIN ${source.table} b ON b.id = f.rowid`,
    id: 'f.rowid',
    params: {},
    condition: { sql: `${source.fts} MATCH :match`, params: { match } },
  };
}

function likeOf(source: Source, alias: string, pattern: string): Condition {
  const clauses = source.columns.map((c) => `${alias}.${c} LIKE :like ESCAPE '\\'`);
  return { sql: `(${clauses.join(' OR ')})`, params: { like: pattern } };
}

function likeFromPhrase(match: string): string {
  const text = match.slice(1, -1).replace(/""/g, '"');
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function likeFromPrefixPlan(plan: { from: string }): string {
  return `%${plan.from.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

async function backfillPending(
  sequelize: Sequelize,
  source: 'hosted_messages' | 'sends',
): Promise<{ done: number; until: number } | null> {
  const range = await indexingRange(sequelize, source);
  return range && range.done < range.until ? range : null;
}

/** Counts up to COUNT_CAP + 1 rows of a SELECT: exact below the cap, capped above it. */
async function cappedCount(
  sequelize: Sequelize,
  selectSql: string,
  params: Record<string, unknown>,
): Promise<{ total: number; totalIsCapped: boolean }> {
  const rows = await select<{ n: number }>(
    sequelize,
    `SELECT count(*) AS n FROM (${selectSql} LIMIT ${COUNT_CAP + 1}) AS capped`,
    params,
  );
  const n = Number(rows[0]?.n ?? 0);
  return n > COUNT_CAP
    ? { total: COUNT_CAP, totalIsCapped: true }
    : { total: n, totalIsCapped: false };
}

function whereOf(conditions: Condition[]): Condition {
  if (conditions.length === 0) return { sql: '', params: {} };
  return {
    sql: `WHERE ${conditions.map((c) => c.sql).join(' AND ')}`,
    params: Object.assign({}, ...conditions.map((c) => c.params)),
  };
}

function select<T extends object>(
  sequelize: Sequelize,
  sql: string,
  replacements: Record<string, unknown>,
): Promise<T[]> {
  return sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });
}
