import { Setting } from '../../db/models/setting';
import type { WriteLock } from '../../db/writer';
import {
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
    const row = await Setting.findByPk(KEY);
    const parsed = settingsSchema.safeParse(row?.value ?? {});
    // A value an older or newer version wrote that no longer fits falls back to defaults
    // rather than stopping Herald from starting.
    this.current = parsed.success ? parsed.data : settingsSchema.parse({});
    return this.current;
  }

  get(): Settings {
    return this.current;
  }

  async update(patch: SettingsPatch): Promise<Settings> {
    const next = settingsSchema.parse({
      ...this.current,
      ...patch,
      retry: retryPolicySchema.parse({ ...this.current.retry, ...(patch.retry ?? {}) }),
      retention: retentionSchema.parse({ ...this.current.retention, ...(patch.retention ?? {}) }),
    });
    if (next.retry.maxDelayMs < next.retry.baseDelayMs) {
      next.retry.maxDelayMs = next.retry.baseDelayMs;
    }
    await this.writeLock.run(() => Setting.upsert({ key: KEY, value: next }));
    this.current = next;
    this.changed();
    return next;
  }
}
