import { dialectOf, perDialect } from '../db/sql-dialect';
import type { WriteLock } from '../db/writer';

/**
 * Daily send counts per channel, for platforms with a daily quota (PushPlus, issue 45): a send
 * is taken from the day's count before it goes, atomically, so N processes on one PostgreSQL
 * database together never pass the limit. Kept in `channel_day_counts` (migration
 * 2026-12-03-1100).
 */
export interface ChannelDayCounts {
  /** Takes one of the channel's `limit` sends of `day`, or says why none is left. */
  take(channelId: number, day: string, limit: number): Promise<DayCountTaken>;
  /** Gives back a send taken for a request the platform did not accept. */
  giveBack(channelId: number, day: string): Promise<void>;
  /** The platform refused the rest of `day` (PushPlus 900): nothing more is taken that day. */
  close(channelId: number, day: string, reason: string): Promise<void>;
}

export type DayCountTaken =
  | { taken: true; sent: number }
  /** `closedReason`: the platform closed the day; null: the limit was reached. */
  | { taken: false; sent: number; closedReason: string | null };

/** Whole hours ahead of UTC of China Standard Time, which has had no daylight saving since 1991. */
const CHINA_OFFSET_MS = 8 * 3_600_000;
const DAY_MS = 86_400_000;

/** The calendar day in China (Asia/Shanghai) at `now`, as YYYY-MM-DD. */
export function chinaDay(now: number): string {
  return new Date(now + CHINA_OFFSET_MS).toISOString().slice(0, 10);
}

/** The next midnight in China (Asia/Shanghai) after `now`, in epoch ms. */
export function nextChinaMidnight(now: number): number {
  return Math.floor((now + CHINA_OFFSET_MS) / DAY_MS) * DAY_MS + DAY_MS - CHINA_OFFSET_MS;
}

/*
 * One statement takes a send: the upsert locks the day's row (PostgreSQL) or runs inside the
 * writer's BEGIN IMMEDIATE (SQLite), and its WHERE reads the latest committed count, so two
 * processes taking the last send at once get it once between them. No row back: none left.
 */
const TAKE = perDialect(
  ({ param: p }) =>
    `INSERT INTO channel_day_counts AS c (channel_id, day, sent, closed_reason)
     VALUES (${p(1)}, ${p(2)}, 1, NULL)
     ON CONFLICT (channel_id, day) DO UPDATE SET sent = c.sent + 1
       WHERE c.sent < ${p(3)} AND c.closed_reason IS NULL
     RETURNING sent`,
);

const READ = perDialect(
  ({ param: p }) =>
    `SELECT sent, closed_reason FROM channel_day_counts
     WHERE channel_id = ${p(1)} AND day = ${p(2)}`,
);

const GIVE_BACK = perDialect(
  ({ param: p }) =>
    `UPDATE channel_day_counts SET sent = sent - 1
     WHERE channel_id = ${p(1)} AND day = ${p(2)} AND sent > 0`,
);

const CLOSE = perDialect(
  ({ param: p }) =>
    `INSERT INTO channel_day_counts AS c (channel_id, day, sent, closed_reason)
     VALUES (${p(1)}, ${p(2)}, 0, ${p(3)})
     ON CONFLICT (channel_id, day) DO UPDATE SET closed_reason = ${p(3)}`,
);

/** The counts in the database, written through the Writer (statements only: repeatable). */
export function sqlDayCounts(writer: WriteLock): ChannelDayCounts {
  return {
    take: (channelId, day, limit) =>
      writer.run(
        async ({ sql }) => {
          const d = dialectOf(sql);
          const [row] = await sql.all<{ sent: number }>(TAKE[d.name], [channelId, day, limit]);
          if (row) return { taken: true, sent: Number(row.sent) };
          const [now] = await sql.all<{ sent: number; closed_reason: string | null }>(
            READ[d.name],
            [channelId, day],
          );
          return {
            taken: false,
            sent: Number(now?.sent ?? 0),
            closedReason: now?.closed_reason ?? null,
          };
        },
        { repeatable: true },
      ),
    giveBack: (channelId, day) =>
      writer.run(
        async ({ sql }) => {
          await sql.run(GIVE_BACK[dialectOf(sql).name], [channelId, day]);
        },
        { repeatable: true },
      ),
    close: (channelId, day, reason) =>
      writer.run(
        async ({ sql }) => {
          await sql.run(CLOSE[dialectOf(sql).name], [channelId, day, reason]);
        },
        { repeatable: true },
      ),
  };
}

/** Counts in this process's memory: for adapter tests and tools that send nothing twice. */
export function memoryDayCounts(): ChannelDayCounts {
  const rows = new Map<string, { sent: number; closedReason: string | null }>();
  const row = (channelId: number, day: string) => {
    const key = `${channelId}/${day}`;
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { sent: 0, closedReason: null }));
    return r;
  };
  return {
    async take(channelId, day, limit) {
      const r = row(channelId, day);
      if (r.closedReason !== null || r.sent >= limit)
        return { taken: false, sent: r.sent, closedReason: r.closedReason };
      r.sent += 1;
      return { taken: true, sent: r.sent };
    },
    async giveBack(channelId, day) {
      const r = row(channelId, day);
      r.sent = Math.max(0, r.sent - 1);
    },
    async close(channelId, day, reason) {
      row(channelId, day).closedReason = reason;
    },
  };
}
