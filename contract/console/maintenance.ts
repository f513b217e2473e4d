import { z } from 'zod';

import { CONSOLE_BASE, named } from '../common';
import { route } from '../route';
import { retentionSchema } from './settings';

const historyRows = z.strictObject({
  sends: z.number().int().min(0),
  deliveries: z.number().int().min(0),
  attempts: z.number().int().min(0),
  hostedMessages: z.number().int().min(0),
});

/** The Settings page's database panel: size on disk, rows, and the retention it runs. */
export const maintenanceInfoSchema = named(
  'MaintenanceInfo',
  z.strictObject({
    /** The SQLite file, or "PostgreSQL database <name>". */
    file: z.string(),
    /** The database file plus its write-ahead log, in bytes. */
    sizeBytes: z.number().min(0),
    dbBytes: z.number().min(0),
    walBytes: z.number().min(0),
    pageSize: z.number().int().min(0),
    pageCount: z.number().int().min(0),
    /** Pages freed by deletes, reused by later writes. */
    freePages: z.number().int().min(0),
    autoVacuum: z.enum(['none', 'full', 'incremental']),
    rows: historyRows,
    /** Rows from before the search index that are still being indexed (0 once done). */
    searchIndexPending: z.number().int().min(0),
    retention: retentionSchema,
  }),
);
export type MaintenanceInfo = z.infer<typeof maintenanceInfoSchema>;

export const pruneResultSchema = named(
  'PruneResult',
  z.strictObject({
    deleted: historyRows.extend({ auditEntries: z.number().int().min(0) }),
    retention: retentionSchema,
  }),
);
export type PruneResult = z.infer<typeof pruneResultSchema>;

export const maintenanceRoutes = {
  info: route({
    method: 'get',
    path: `${CONSOLE_BASE}/maintenance`,
    summary: "The database's size and row counts, and the retention settings",
    response: maintenanceInfoSchema,
  }),
  prune: route({
    method: 'post',
    path: `${CONSOLE_BASE}/maintenance/prune`,
    summary: 'Run retention now: prune sends and hosted messages older than it keeps',
    response: pruneResultSchema,
  }),
};
