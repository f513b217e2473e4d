import { describe, expect, it } from 'vitest';

import {
  DEFAULT_DESKTOP_SETTINGS,
  createDesktopSettings,
  defaultDesktopSettings,
  desktopSettingsPatchSchema,
  readStoredSettings,
  type SettingsStoreLike,
} from '../../../main/settings';

function memoryStore(initial: Record<string, unknown> = {}) {
  const writes: Record<string, unknown>[] = [];
  const store: SettingsStoreLike & { writes: typeof writes } = {
    store: { ...initial },
    set(values) {
      writes.push(values);
      Object.assign(this.store, values);
    },
    writes,
  };
  return store;
}

describe('defaultDesktopSettings', () => {
  it('DEFAULT_DESKTOP_SETTINGS are the documented defaults of a machine with a tray', () => {
    expect(DEFAULT_DESKTOP_SETTINGS).toEqual({
      port: 8765,
      listenOnLan: false,
      startAtLogin: false,
      minimizeToTray: true,
      notifications: true,
      doNotDisturb: false,
      databaseFromEnvironment: false,
    });
    expect(defaultDesktopSettings(true)).toEqual(DEFAULT_DESKTOP_SETTINGS);
    expect(readStoredSettings({})).toEqual(DEFAULT_DESKTOP_SETTINGS);
  });

  it('defaultDesktopSettings(false) turns close-to-tray off where no tray shows, and only that', () => {
    expect(defaultDesktopSettings(false)).toEqual({
      ...DEFAULT_DESKTOP_SETTINGS,
      minimizeToTray: false,
    });
  });

  it('a stored close-to-tray choice wins over the machine default either way', () => {
    expect(
      readStoredSettings({ minimizeToTray: true }, defaultDesktopSettings(false)),
    ).toMatchObject({ minimizeToTray: true });
    expect(
      readStoredSettings({ minimizeToTray: false }, defaultDesktopSettings(true)),
    ).toMatchObject({ minimizeToTray: false });
    // A bad value falls back to this machine's default, not the tray machine's.
    expect(
      readStoredSettings({ minimizeToTray: 'no' }, defaultDesktopSettings(false)),
    ).toMatchObject({ minimizeToTray: false });
  });

  it('stored ports outside 1024–65535 and non-integers fall back to the default', () => {
    for (const port of [0, 80, 1023, 65536, 8765.5, '8765']) {
      expect(readStoredSettings({ port }).port).toBe(8765);
    }
    expect(readStoredSettings({ port: 1024 }).port).toBe(1024);
    expect(readStoredSettings({ port: 65535 }).port).toBe(65535);
  });
});

describe('desktopSettingsPatchSchema', () => {
  it('desktopSettingsPatchSchema accepts any subset of known fields', () => {
    expect(desktopSettingsPatchSchema.parse({})).toEqual({});
    expect(desktopSettingsPatchSchema.parse({ doNotDisturb: true })).toEqual({
      doNotDisturb: true,
    });
  });

  it('desktopSettingsPatchSchema refuses unknown fields and never fills defaults', () => {
    expect(desktopSettingsPatchSchema.safeParse({ dataDir: '/tmp' }).success).toBe(false);
    expect(desktopSettingsPatchSchema.parse({ port: 9000 })).not.toHaveProperty('listenOnLan');
  });
});

describe('readStoredSettings', () => {
  it('readStoredSettings() repairs bad fields one by one and keeps the good ones', () => {
    const settings = readStoredSettings({
      port: 'eighty',
      listenOnLan: true,
      notifications: 'yes',
    });

    expect(settings).toEqual({ ...DEFAULT_DESKTOP_SETTINGS, listenOnLan: true });
  });

  it('readStoredSettings() survives a store that is not an object', () => {
    expect(readStoredSettings(null)).toEqual(DEFAULT_DESKTOP_SETTINGS);
    expect(readStoredSettings('garbage')).toEqual(DEFAULT_DESKTOP_SETTINGS);
  });

  it('readStoredSettings() drops keys it does not know', () => {
    expect(readStoredSettings({ theme: 'dark' })).not.toHaveProperty('theme');
  });
});

describe('createDesktopSettings', () => {
  it('update() saves only the changed fields and reports them', () => {
    const store = memoryStore({ port: 9000 });
    const settings = createDesktopSettings(store);

    const update = settings.update({ doNotDisturb: true, port: 9000 });

    expect(update).toEqual({
      settings: { ...DEFAULT_DESKTOP_SETTINGS, port: 9000, doNotDisturb: true },
      changed: ['doNotDisturb'],
      restartRequired: false,
    });
    expect(store.writes).toEqual([{ doNotDisturb: true }]);
  });

  it('a machine default (close-to-tray) is not written to the file by an unrelated change', () => {
    const store = memoryStore({});
    const settings = createDesktopSettings(store, defaultDesktopSettings(false));

    settings.update({ notifications: false });

    expect(settings.get().minimizeToTray).toBe(false);
    expect(store.store).toEqual({ notifications: false });
    // The next start on a desktop that has a tray by then gets that machine's default.
    expect(createDesktopSettings(store, defaultDesktopSettings(true)).get().minimizeToTray).toBe(
      true,
    );
  });

  it('update() flags a restart for port and LAN changes', () => {
    const settings = createDesktopSettings(memoryStore());

    expect(settings.update({ port: 9001 }).restartRequired).toBe(true);
    expect(settings.update({ listenOnLan: true }).restartRequired).toBe(true);
    expect(settings.update({ minimizeToTray: false }).restartRequired).toBe(false);
  });

  it('update() throws on an invalid patch and leaves the settings untouched', () => {
    const store = memoryStore();
    const settings = createDesktopSettings(store);

    expect(() => settings.update({ port: -1 })).toThrow();
    expect(() => settings.update({ unknown: true })).toThrow();
    expect(settings.get()).toEqual(DEFAULT_DESKTOP_SETTINGS);
    expect(store.writes).toEqual([]);
  });

  it('update() neither writes nor notifies when nothing changed', () => {
    const store = memoryStore();
    const settings = createDesktopSettings(store);
    const seen: string[][] = [];
    settings.onChange((u) => seen.push(u.changed));

    settings.update({ notifications: true });

    expect(store.writes).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('onChange() tells listeners what changed until they unsubscribe', () => {
    const settings = createDesktopSettings(memoryStore());
    const seen: string[][] = [];
    const unsubscribe = settings.onChange((u) => seen.push(u.changed));

    settings.update({ doNotDisturb: true });
    unsubscribe();
    settings.update({ doNotDisturb: false });

    expect(seen).toEqual([['doNotDisturb']]);
  });

  it('get() returns a copy that callers cannot use to change the settings', () => {
    const settings = createDesktopSettings(memoryStore());

    settings.get().port = 1;

    expect(settings.get().port).toBe(8765);
  });
});
