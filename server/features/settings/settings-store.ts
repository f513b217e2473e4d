import type { Transaction } from 'sequelize';

import { joinOrTransact, type CallerTx } from '../../db/caller-tx';
import { Setting } from '../../db/models/setting';
import type { WriteLock } from '../../db/writer';
import {
  attachmentLimitsSchema,
  retentionSchema,
  retryPolicySchema,
  settingsSchema,
  type Settings,
  type SettingsPatch,
} from '../../config/settings-schema';

const KEY = 'settings';

/** The administrator's settings, cached in memory and written through to the settings table. */
export class SettingsStore {
  private current: Settings = settingsSchema.parse({});

  constructor(
    private readonly writeLock: WriteLock,
    /** Told once a change is committed (other processes then load the settings again). */
    private readonly changed: () => void = () => {},
  ) {}

  async load(): Promise<Settings> {
    this.current = await this.read();
    return this.current;
  }

  get(): Settings {
    return this.current;
  }

  /**
   * The settings as stored, or as a caller's transaction sees them (its own writes included),
   * without touching what this process keeps in memory.
   */
  async read(tx?: CallerTx): Promise<Settings> {
    return this.stored(tx?.transaction);
  }

  /**
   * Writes the patch over the stored settings. In a caller's transaction, this process takes
   * the new settings up, and tells the others, only once that transaction committed.
   */
  async update(patch: SettingsPatch, tx?: CallerTx): Promise<Settings> {
    return joinOrTransact(this.writeLock, tx, async ({ transaction, afterCommit }) => {
      // The row rather than this process's copy: another process may have saved a moment ago.
      const next = merge(await this.stored(transaction), patch);
      await Setting.upsert({ key: KEY, value: next }, { transaction });
      afterCommit(() => {
        this.current = next;
        this.changed();
      });
      return next;
    });
  }

  private async stored(transaction?: Transaction): Promise<Settings> {
    const row = await Setting.findByPk(KEY, { transaction });
    const parsed = settingsSchema.safeParse(row?.value ?? {});
    // A value an older or newer version wrote that no longer fits falls back to defaults
    // rather than stopping Herald from starting.
    return parsed.success ? parsed.data : settingsSchema.parse({});
  }
}

function merge(current: Settings, patch: SettingsPatch): Settings {
  const next = settingsSchema.parse({
    ...current,
    ...patch,
    retry: retryPolicySchema.parse({ ...current.retry, ...(patch.retry ?? {}) }),
    retention: retentionSchema.parse({ ...current.retention, ...(patch.retention ?? {}) }),
    attachments: attachmentLimitsSchema.parse({
      ...current.attachments,
      ...(patch.attachments ?? {}),
    }),
  });
  if (next.retry.maxDelayMs < next.retry.baseDelayMs) {
    next.retry.maxDelayMs = next.retry.baseDelayMs;
  }
  return next;
}
