import { z } from 'zod';

import { CONSOLE_BASE, named, timestampSchema } from '../common';
import { route } from '../route';

export const statsQuery = z.object({
  /** The window, in whole UTC days ending today. */
  days: z.coerce.number<number | string>().int().min(1).max(365).default(30),
});

const count = z.number().int().min(0);

/** The dashboard's figures. */
export const statsSchema = named(
  'Stats',
  z.strictObject({
    /** Sends per day and status, oldest first. */
    days: z.array(
      z.strictObject({
        date: z.string(),
        sent: count,
        partial: count,
        failed: count,
        pending: count,
        /** Sends a dedup window kept from delivery. */
        suppressed: count,
      }),
    ),
    totals: z.strictObject({
      today: count,
      last7: count,
      last30: count,
      /** Sent deliveries over finished ones in the window; null when none finished. */
      successRate: z.number().min(0).max(1).nullable(),
    }),
    byChannel: z.array(
      z.strictObject({
        channelId: z.number().int(),
        name: z.string(),
        type: z.string(),
        sent: count,
        failed: count,
        pending: count,
      }),
    ),
    bySource: z.array(
      z.strictObject({
        api: z.string(),
        /** The task (V1) or template (V2); null when the send had none. */
        id: z.number().int().nullable(),
        name: z.string(),
        sends: count,
        sent: count,
        failed: count,
      }),
    ),
    /** Deliveries waiting for their next attempt. */
    retrying: count,
    latestFailures: z.array(
      z.strictObject({
        sendId: z.number().int(),
        deliveryId: z.number().int(),
        title: z.string(),
        channelName: z.string(),
        error: z.string().nullable(),
        at: timestampSchema,
      }),
    ),
  }),
);
export type Stats = z.infer<typeof statsSchema>;
/** One day of the dashboard's chart. */
export type DayStats = Stats['days'][number];

export const statsRoutes = {
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/stats`,
    summary: 'Dashboard numbers over the last `days` days (1 to 365, default 30)',
    query: statsQuery,
    response: statsSchema,
  }),
};
