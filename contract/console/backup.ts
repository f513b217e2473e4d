import { z } from 'zod';

import { CONSOLE_BASE, named, queryFlag } from '../common';
import { route } from '../route';

/** An absolute path on any system Herald runs on: /…, C:\… or \\server\share\…. */
const ABSOLUTE_PATH = /^(\/|[A-Za-z]:[\\/]|\\\\)/;

/** Scheduled backups as the console changes them (Settings → Backup). */
export const backupScheduleFields = {
  enabled: z.boolean(),
  /** Hours between two backups: 24 is daily. */
  everyHours: z
    .number()
    .int()
    .min(1)
    .max(24 * 31),
  /** Backups kept in the folder; older scheduled ones are deleted. */
  keep: z.number().int().min(1).max(1000),
  /** An absolute folder; empty: `backups/` in the data folder. */
  folder: z
    .string({ error: 'must be a string' })
    .trim()
    .max(1024, 'must be at most 1024 characters')
    .refine((v) => v === '' || ABSOLUTE_PATH.test(v), {
      error: "must be an absolute path, or empty for the data folder's backups/",
    }),
  /** Put the server key in each backup (off: restoring needs HERALD_SECRET_KEY). */
  includeKey: z.boolean(),
};

export const backupSchedulePatchBody = z.object(backupScheduleFields).partial().strict();
export type BackupSchedulePatch = z.input<typeof backupSchedulePatchBody>;

export const backupScheduleSchema = named(
  'BackupSchedule',
  z.strictObject({
    enabled: z.boolean(),
    everyHours: z.number().int(),
    keep: z.number().int(),
    folder: z.string(),
    includeKey: z.boolean(),
    /** Where backups go when `folder` is empty: the data folder's backups/. */
    defaultFolder: z.string(),
    /** False on PostgreSQL: pg_dump backs it up (docs/running-for-a-team.md). */
    available: z.boolean(),
    /** The newest scheduled backup in the folder, or null. */
    lastBackupAt: z.string().nullable(),
    /** Why the last scheduled backup failed, or null. */
    lastError: z.string().nullable(),
  }),
);
export type BackupSchedule = z.infer<typeof backupScheduleSchema>;

export const backupRoutes = {
  download: route({
    method: 'get',
    path: `${CONSOLE_BASE}/backup`,
    summary:
      'A backup of the database, made now, as a file to download (with the server key unless withoutKey=1)',
    query: z.object({ withoutKey: queryFlag }),
    answers: 'attachment',
    refusals: { 409: 'Herald runs on PostgreSQL: the message gives the pg_dump line to use' },
  }),
  schedule: route({
    method: 'get',
    path: `${CONSOLE_BASE}/backup/schedule`,
    summary: 'Scheduled backups: the setting and the newest backup',
    response: backupScheduleSchema,
  }),
  updateSchedule: route({
    method: 'put',
    path: `${CONSOLE_BASE}/backup/schedule`,
    summary: 'Change scheduled backups (any of the fields)',
    body: backupSchedulePatchBody,
    response: backupScheduleSchema,
  }),
};
