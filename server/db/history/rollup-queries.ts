import { QueryTypes, type Sequelize } from 'sequelize';

import { onPostgres } from '../postgres/history-postgres';

/**
 * Dashboard reads from the daily roll-ups the triggers keep (migration history-index): each
 * answers from at most days × sources × statuses rows, however many sends there are.
 * Days are UTC 'YYYY-MM-DD' strings, which compare as text.
 */

const select = <T extends object>(
  sequelize: Sequelize,
  sql: string,
  replacements: Record<string, unknown>,
) => sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });

export function sendsPerDay(sequelize: Sequelize, sinceDay: string) {
  return select<{ day: string; status: string; n: number }>(
    sequelize,
    `SELECT day, status, sum(n) AS n FROM send_day_rollup WHERE day >= :sinceDay
     GROUP BY day, status HAVING sum(n) > 0`,
    { sinceDay },
  );
}

export function deliveriesPerChannel(sequelize: Sequelize, sinceDay: string) {
  return select<{ channel_id: number; status: string; n: number }>(
    sequelize,
    `SELECT channel_id, status, sum(n) AS n FROM delivery_day_rollup WHERE day >= :sinceDay
     GROUP BY channel_id, status HAVING sum(n) > 0`,
    { sinceDay },
  );
}

export function sendsPerSource(sequelize: Sequelize, sinceDay: string) {
  return select<{
    api: string;
    task_id: number | null;
    template_id: number | null;
    source_name: string;
    status: string;
    n: number;
  }>(
    sequelize,
    `SELECT api, nullif(task_id, 0) AS task_id, nullif(template_id, 0) AS template_id,
            source_name, status, sum(n) AS n
     FROM send_day_rollup WHERE day >= :sinceDay
     GROUP BY api, task_id, template_id, source_name, status HAVING sum(n) > 0`,
    { sinceDay },
  );
}

/**
 * The latest failed deliveries, through the partial index of failed rows: the planner would
 * otherwise pick the status index and sort every failure ever recorded.
 */
export async function latestFailedDeliveryIds(sequelize: Sequelize, limit: number) {
  // PostgreSQL's planner picks the partial index by itself and has no INDEXED BY.
  const indexedBy = onPostgres(sequelize) ? '' : ' INDEXED BY deliveries_failed_by_update';
  const rows = await select<{ id: number }>(
    sequelize,
    `SELECT id FROM deliveries${indexedBy}
     WHERE status = 'failed' ORDER BY updated_at DESC LIMIT :limit`,
    { limit },
  );
  return rows.map((r) => r.id);
}
