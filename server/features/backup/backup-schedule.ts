import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { z } from 'zod';

import { backupScheduleFields, type BackupSchedulePatch } from '../../../contract/console/backup';
import { Setting } from '../../db/models/setting';
import type { WriteLock } from '../../db/writer';
import { BACKUP_EXTENSION } from './backup-format';

/** The settings row that holds the schedule: a row of its own, so it has its own defaults. */
export const SCHEDULE_SETTING = 'backup-schedule';

/** The folder scheduled backups go to when none is set, inside the data folder. */
export const DEFAULT_BACKUP_FOLDER = 'backups';

export const backupScheduleSchema = z.object(backupScheduleFields);
export type BackupScheduleSetting = z.infer<typeof backupScheduleSchema>;

/**
 * Until an administrator saves a schedule: off, or (the desktop app, `backupsByDefault`) daily
 * into the data folder's backups/, keeping a week.
 */
export function defaultSchedule(backupsByDefault: boolean): BackupScheduleSetting {
  return { enabled: backupsByDefault, everyHours: 24, keep: 7, folder: '', includeKey: true };
}

export async function readSchedule(
  fallback: BackupScheduleSetting,
): Promise<BackupScheduleSetting> {
  const row = await Setting.findByPk(SCHEDULE_SETTING);
  if (!row) return fallback;
  // A value another version wrote that no longer fits: its fields that do, over the defaults.
  const parsed = backupScheduleSchema.partial().safeParse(row.value);
  return { ...fallback, ...(parsed.success ? parsed.data : {}) };
}

export async function writeSchedule(
  writeLock: WriteLock,
  fallback: BackupScheduleSetting,
  patch: BackupSchedulePatch,
): Promise<BackupScheduleSetting> {
  return writeLock.run(async ({ transaction }) => {
    const row = await Setting.findByPk(SCHEDULE_SETTING, { transaction });
    const stored = backupScheduleSchema.partial().safeParse(row?.value ?? {});
    const next = backupScheduleSchema.parse({
      ...fallback,
      ...(stored.success ? stored.data : {}),
      ...patch,
    });
    await Setting.upsert({ key: SCHEDULE_SETTING, value: next }, { transaction });
    return next;
  });
}

/** `herald-2026-11-27T14-00-00Z.herald-backup`: sortable, and safe on every file system. */
export function scheduledName(at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
  return `herald-${stamp}${BACKUP_EXTENSION}`;
}

const SCHEDULED = /^herald-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})Z\.herald-backup$/;

/** The scheduled backups in a folder, newest first; files named otherwise are not ours. */
export function scheduledBackups(folder: string): Array<{ file: string; at: number }> {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .map((name) => {
      const m = SCHEDULED.exec(name);
      return m
        ? { file: join(folder, name), at: Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`) }
        : null;
    })
    .filter((b): b is { file: string; at: number } => b !== null && Number.isFinite(b.at))
    .sort((a, b) => b.at - a.at);
}

/** Deletes the scheduled backups past the newest `keep`; returns what it deleted. */
export function pruneScheduled(folder: string, keep: number): string[] {
  const old = scheduledBackups(folder).slice(keep);
  for (const { file } of old) rmSync(file, { force: true });
  return old.map((b) => b.file);
}
