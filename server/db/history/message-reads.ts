import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

import { settleHostedInserts } from '../postgres/hosted-insert-lock';

/**
 * Who has read which hosted message (migration 2026-11-27-1100-per-person-reads): per user a
 * watermark (`read_through`: every message up to it is read) and exceptions to it
 * (`hosted_message_reads`: above the watermark a row means read, at or below it a row with
 * `read` false means unread). Every count here is the messages counter, one row of the user and
 * an index range of the user's exceptions: nothing grows with the history itself.
 */

export interface ReadMark {
  readThrough: number;
  /** How many messages have an id up to the watermark. */
  below: number;
}

const MESSAGES_TOTAL = `(SELECT coalesce(sum(n), 0) FROM history_counters WHERE name = 'hosted_messages')`;

/** A message read by `:reader` given its watermark `:w`, for a row `b`: its exception, else its side of the watermark. */
export const READ_BY_READER = `coalesce((SELECT r.read FROM hosted_message_reads r
  WHERE r.user_id = :reader AND r.message_id = b.id), b.id <= :w)`;

type Query = <T extends object>(sql: string, replacements: Record<string, unknown>) => Promise<T[]>;

function queryOn(sequelize: Sequelize, transaction?: Transaction): Query {
  return <T extends object>(sql: string, replacements: Record<string, unknown>) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements, transaction });
}

async function exec(
  sequelize: Sequelize,
  transaction: Transaction,
  sql: string,
  replacements: Record<string, unknown>,
): Promise<void> {
  await sequelize.query(sql, { replacements, transaction });
}

/** The user's watermark, or null when the user has none yet (see {@link startReads}). */
export async function readMarkOf(
  sequelize: Sequelize,
  userId: number,
  transaction?: Transaction,
): Promise<ReadMark | null> {
  const rows = await queryOn(sequelize, transaction)<{ read_through: number; below: number }>(
    'SELECT read_through, below FROM hosted_message_read_marks WHERE user_id = :reader',
    { reader: userId },
  );
  const row = rows[0];
  return row ? { readThrough: Number(row.read_through), below: Number(row.below) } : null;
}

/**
 * Gives a user a watermark if they have none: at the newest message that arrived before the
 * user was created, so a new teammate starts with only what arrives from then on unread (the
 * scan back from the newest message stops there). Users that existed at the migration got
 * theirs from the old read flag.
 */
export async function startReads(
  sequelize: Sequelize,
  transaction: Transaction,
  userId: number,
): Promise<void> {
  await exec(
    sequelize,
    transaction,
    // `WHERE true`: without a WHERE, SQLite would read the upsert's ON as a join constraint.
    `INSERT INTO hosted_message_read_marks (user_id, read_through, below)
     SELECT :reader, w.id, ${MESSAGES_TOTAL} - (SELECT count(*) FROM hosted_messages m WHERE m.id > w.id)
     FROM (SELECT coalesce((SELECT m.id FROM hosted_messages m
             WHERE m.created_at <= (SELECT u.created_at FROM users u WHERE u.id = :reader)
             ORDER BY m.id DESC LIMIT 1), 0) AS id) w
     WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = :reader)
     ON CONFLICT (user_id) DO NOTHING`,
    { reader: userId },
  );
}

/** How many messages the user has not read. */
export async function unreadCountOf(
  sequelize: Sequelize,
  userId: number,
  transaction?: Transaction,
): Promise<number> {
  const rows = await queryOn(sequelize, transaction)<{ n: number }>(
    `SELECT ${MESSAGES_TOTAL} - k.below
       - (SELECT count(*) FROM hosted_message_reads r
            WHERE r.user_id = k.user_id AND r.message_id > k.read_through AND r.read)
       + (SELECT count(*) FROM hosted_message_reads r
            WHERE r.user_id = k.user_id AND r.message_id <= k.read_through AND NOT r.read) AS n
     FROM hosted_message_read_marks k WHERE k.user_id = :reader`,
    { reader: userId },
  );
  return Math.max(0, Number(rows[0]?.n ?? 0));
}

/** Of the given messages, the ids the user has read. */
export async function readIdsOf(
  sequelize: Sequelize,
  userId: number,
  mark: ReadMark,
  ids: number[],
): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const exceptions = await queryOn(sequelize)<{ message_id: number; read: unknown }>(
    `SELECT message_id, read FROM hosted_message_reads
     WHERE user_id = :reader AND message_id IN (:ids)`,
    { reader: userId, ids },
  );
  const read = new Set(ids.filter((id) => id <= mark.readThrough));
  for (const e of exceptions) {
    // SQLite answers 1/0, PostgreSQL true/false.
    if (e.read === true || e.read === 1) read.add(Number(e.message_id));
    else read.delete(Number(e.message_id));
  }
  return read;
}

/** Marks one message read or unread for the user (the user has a watermark). */
export async function setReadFor(
  sequelize: Sequelize,
  transaction: Transaction,
  userId: number,
  messageId: number,
  read: boolean,
): Promise<void> {
  const mark = await readMarkOf(sequelize, userId, transaction);
  const replacements = { reader: userId, id: messageId };
  // A row is needed only where the state differs from the watermark's side.
  if (mark && messageId > mark.readThrough !== read) {
    await exec(
      sequelize,
      transaction,
      'DELETE FROM hosted_message_reads WHERE user_id = :reader AND message_id = :id',
      replacements,
    );
    return;
  }
  await exec(
    sequelize,
    transaction,
    `INSERT INTO hosted_message_reads (user_id, message_id, read) VALUES (:reader, :id, ${read})
     ON CONFLICT (user_id, message_id) DO UPDATE SET read = excluded.read`,
    replacements,
  );
}

/**
 * Everything read for the user: the watermark moves to the newest message and the user's
 * exceptions go. Answers how many messages that marked read.
 */
export async function readAllFor(
  sequelize: Sequelize,
  transaction: Transaction,
  userId: number,
): Promise<number> {
  // On PostgreSQL, messages another process is committing right now get their place first.
  await settleHostedInserts(sequelize, transaction);
  const before = await unreadCountOf(sequelize, userId, transaction);
  const replacements = { reader: userId };
  // One statement, one snapshot: `below` counts exactly the messages up to the new watermark.
  await exec(
    sequelize,
    transaction,
    `UPDATE hosted_message_read_marks
     SET read_through = (SELECT coalesce(max(id), 0) FROM hosted_messages), below = ${MESSAGES_TOTAL}
     WHERE user_id = :reader`,
    replacements,
  );
  await exec(
    sequelize,
    transaction,
    `DELETE FROM hosted_message_reads WHERE user_id = :reader
       AND message_id <= (SELECT read_through FROM hosted_message_read_marks WHERE user_id = :reader)`,
    replacements,
  );
  return before;
}

/** {@link startReads} for every user who has no watermark yet. */
export async function startReadsForEveryone(
  sequelize: Sequelize,
  transaction: Transaction,
): Promise<void> {
  const users = await queryOn(sequelize, transaction)<{ id: number }>(
    `SELECT u.id FROM users u WHERE NOT EXISTS
       (SELECT 1 FROM hosted_message_read_marks k WHERE k.user_id = u.id)`,
    {},
  );
  for (const u of users) await startReads(sequelize, transaction, Number(u.id));
}

/** Every message read for every user who has a watermark: the Message Nest import's arrivals. */
export async function markReadForEveryone(
  sequelize: Sequelize,
  transaction: Transaction,
  messageIds: number[],
): Promise<void> {
  if (messageIds.length === 0) return;
  await exec(
    sequelize,
    transaction,
    `INSERT INTO hosted_message_reads (user_id, message_id, read)
     SELECT k.user_id, m.id, true FROM hosted_message_read_marks k CROSS JOIN hosted_messages m
     WHERE m.id IN (:ids) AND m.id > k.read_through
     ON CONFLICT (user_id, message_id) DO UPDATE SET read = excluded.read`,
    { ids: messageIds },
  );
}

/**
 * One page of the user's unread messages without a search, newest first or priority first:
 * the unread ones above the watermark (no exception) and the exceptions below it, each read
 * from its index in order and merged, so neither side scans the read history.
 */
export async function unreadPage(
  sequelize: Sequelize,
  userId: number,
  mark: ReadMark,
  page: { limit: number; offset: number },
  priorityFirst: boolean,
): Promise<number[]> {
  const first = priorityFirst ? 'CASE WHEN b.priority >= 4 THEN b.priority ELSE 0 END DESC, ' : '';
  const params = { reader: userId, w: mark.readThrough, n: page.offset + page.limit };
  const query = queryOn(sequelize);
  type Row = { id: number; priority: number | null };
  const [above, below] = await Promise.all([
    query<Row>(
      `SELECT b.id, b.priority FROM hosted_messages b
       WHERE b.id > :w AND NOT EXISTS (SELECT 1 FROM hosted_message_reads r
         WHERE r.user_id = :reader AND r.message_id = b.id)
       ORDER BY ${first}b.id DESC LIMIT :n`,
      params,
    ),
    query<Row>(
      `SELECT b.id, b.priority FROM hosted_message_reads r
       JOIN hosted_messages b ON b.id = r.message_id
       WHERE r.user_id = :reader AND r.message_id <= :w AND NOT r.read
       ORDER BY ${first}b.id DESC LIMIT :n`,
      params,
    ),
  ]);
  const rank = (r: Row) => (priorityFirst && (r.priority ?? 0) >= 4 ? Number(r.priority) : 0);
  return [...above, ...below]
    .map((r) => ({ id: Number(r.id), priority: r.priority }))
    .sort((a, b) => rank(b) - rank(a) || b.id - a.id)
    .slice(page.offset, page.offset + page.limit)
    .map((r) => r.id);
}
