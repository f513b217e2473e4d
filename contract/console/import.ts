import { z } from 'zod';

import { CONSOLE_BASE, named, queryFlag } from '../common';
import { route } from '../route';

/** What an import counts, kind by kind. */
export const IMPORT_KINDS = [
  'channels',
  'tasks',
  'templates',
  'instances',
  'schedules',
  'hostedMessages',
  'logs',
] as const;

export type ImportKind = (typeof IMPORT_KINDS)[number];

const kindCounts = z.strictObject({
  created: z.number().int().min(0),
  alreadyImported: z.number().int().min(0),
  skipped: z.number().int().min(0),
});

/** What an import did (or, dry, would do). */
export const importReportSchema = named(
  'ImportReport',
  z.strictObject({
    source: z.string(),
    dryRun: z.boolean(),
    /** Message Nest's table prefix as found. */
    tablePrefix: z.string(),
    counts: z.strictObject(
      Object.fromEntries(IMPORT_KINDS.map((kind) => [kind, kindCounts])) as Record<
        (typeof IMPORT_KINDS)[number],
        typeof kindCounts
      >,
    ),
    skipped: z.array(
      z.strictObject({
        kind: z.enum(IMPORT_KINDS),
        /** Message Nest's table the row is in, as found (its prefix included). */
        table: z.string(),
        /** Message Nest's id of the row. */
        id: z.string(),
        name: z.string(),
        reason: z.string(),
      }),
    ),
    /**
     * Each schedule created and the zone it runs in: `cron` named in its Message Nest
     * expression (CRON_TZ=), `option` the zone the import was given, `default` Message Nest's
     * (Asia/Shanghai), as Message Nest stores none.
     */
    scheduleZones: z.array(
      z.strictObject({
        id: z.string(),
        name: z.string(),
        timeZone: z.string(),
        source: z.enum(['cron', 'option', 'default']),
      }),
    ),
    /** Things carried over with a difference, and settings the import changed. */
    notes: z.array(z.string()),
  }),
);
export type ImportReport = z.infer<typeof importReportSchema>;

export const importQuery = z.object({
  /** Roll everything back and answer what would have happened. */
  dryRun: queryFlag,
  /** Bring the send logs over too. */
  withLogs: queryFlag,
  /** The IANA zone Message Nest ran in, for its schedules (default Asia/Shanghai). */
  timeZone: z.string().max(100).optional(),
});

export const importRoutes = {
  messageNest: route({
    method: 'post',
    path: `${CONSOLE_BASE}/import/message-nest`,
    summary:
      'Import a Message Nest installation from its SQLite file (conf/database.db, at most 256 MiB), sent raw',
    query: importQuery,
    rawBody: 'application/octet-stream',
    response: importReportSchema,
  }),
};
