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
        /** Sends a digest collected (each digest is a send of its own, counted by its status). */
        collected: count,
      }),
    ),
    totals: z.strictObject({
      today: count,
      last7: count,
      last30: count,
      /**
       * Sent deliveries over those tried in the window: sent, failed, and failed once and
       * waiting to retry; null when none was tried.
       */
      successRate: z.number().min(0).max(1).nullable(),
    }),
    byChannel: z.array(
      z.strictObject({
        channelId: z.number().int(),
        name: z.string(),
        type: z.string(),
        sent: count,
        failed: count,
        /** Failed at least once, waiting for their next attempt. */
        retrying: count,
        /** Not tried yet (queued or being sent). */
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
    /** Files sent with messages that are kept now, and the space they take (issue 43 §2). */
    files: z.strictObject({ count, bytes: count }),
    /** Deliveries waiting to retry (newest first), then the latest failed, 10 at most. */
    latestFailures: z.array(
      z.strictObject({
        sendId: z.number().int(),
        deliveryId: z.number().int(),
        title: z.string(),
        channelName: z.string(),
        status: z.enum(['retrying', 'failed']),
        error: z.string().nullable(),
        /** When a retrying delivery is tried next; null for a failed one. */
        nextAttemptAt: timestampSchema.nullable(),
        /** Its last attempt. */
        at: timestampSchema,
      }),
    ),
  }),
);
export type Stats = z.infer<typeof statsSchema>;
/** One day of the dashboard's chart. */
export type DayStats = Stats['days'][number];

/**
 * How a channel's latest tried deliveries went (issue 41 §3): only channels with a delivery
 * that was tried (sent, failed, or failed and waiting to retry) are listed.
 */
export const channelHealthSchema = named(
  'ChannelHealth',
  z.strictObject({
    channelId: z.number().int().positive(),
    /** `failing`: its latest tried delivery failed, for now or for good; `ok`: it was sent. */
    state: z.enum(['ok', 'failing']),
    /** How many of its latest tried deliveries failed in a row, newest first (at most 5). */
    failures: count,
    /** The latest failure's error; null when it is `ok`. */
    lastError: z.string().nullable(),
    /** When its latest tried delivery was last attempted. */
    at: timestampSchema,
  }),
);
export type ChannelHealth = z.infer<typeof channelHealthSchema>;

/**
 * Something Herald noticed about how it is set up, shown on the dashboard until it is fixed.
 * `publicBaseUrlUnset`: requests come through a trusted reverse proxy under another name than
 * Herald's own address while `publicBaseUrl` is empty, so the links Herald hands out (share
 * links, invite links, hook URLs) point at its own address rather than the proxy's.
 */
export const dashboardNoticeSchema = named(
  'DashboardNotice',
  z.strictObject({
    code: z.enum(['publicBaseUrlUnset']),
    /** The name the proxy passed on (X-Forwarded-Host, else Host), as seen. */
    host: z.string(),
    /** The address the links start with now (Herald's own). */
    linksStartWith: z.string(),
    /** The value to set, from the scheme and name the proxy passed on. */
    suggested: z.string(),
    /** The setting that fixes it. */
    setting: z.literal('publicBaseUrl'),
  }),
);
export type DashboardNotice = z.infer<typeof dashboardNoticeSchema>;

export const statsRoutes = {
  get: route({
    method: 'get',
    path: `${CONSOLE_BASE}/stats`,
    summary: 'Dashboard numbers over the last `days` days (1 to 365, default 30)',
    query: statsQuery,
    response: statsSchema,
  }),
  channelHealth: route({
    method: 'get',
    path: `${CONSOLE_BASE}/stats/channel-health`,
    summary: "Each channel's latest tried deliveries: failing or ok, with the last error",
    response: z.array(channelHealthSchema),
  }),
  notices: route({
    method: 'get',
    path: `${CONSOLE_BASE}/stats/notices`,
    summary:
      'Setup problems Herald noticed while running, for the dashboard (e.g. behind a reverse proxy without publicBaseUrl)',
    response: z.array(dashboardNoticeSchema),
  }),
};
