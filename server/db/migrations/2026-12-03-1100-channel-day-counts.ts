import type { QueryInterface } from 'sequelize';

/**
 * Sends a channel made on one day (issue 45: PushPlus bans an account past 200 requests a day),
 * so a daily limit holds across restarts and across several processes on one PostgreSQL
 * database (server/channels/day-counts.ts):
 *
 * - `day`: the platform's calendar day, `YYYY-MM-DD` (PushPlus: China time, UTC+8).
 * - `sent`: sends taken that day; taken by one `INSERT … ON CONFLICT DO UPDATE … WHERE sent <
 *   limit`, so two processes never both take the last one.
 * - `closed_reason`: set when the platform itself refused the rest of the day (PushPlus 900);
 *   no send is taken that day after it.
 *
 * Rows go with their channel; old days are pruned hourly (retention.ts). The statements are the
 * same on both dialects.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query(
    `CREATE TABLE channel_day_counts (
       channel_id INTEGER NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
       day VARCHAR(10) NOT NULL,
       sent INTEGER NOT NULL,
       closed_reason TEXT,
       PRIMARY KEY (channel_id, day)
     )`,
  );
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('DROP TABLE channel_day_counts');
}
