import { z } from 'zod';

import type { DesktopSettings as DesktopSettingsForRenderer } from './preload/desktop-api';

/**
 * Desktop settings (electron-store, `config.json` in the user-data folder): how the window and
 * the embedded server behave on this machine. Server-side settings (retries, limits) live in
 * the database and the console, not here.
 */

/** The settings file's name in the user-data folder (electron-store's `name` plus `.json`). */
export const SETTINGS_FILE = 'config.json';

/** One validator per field, shared by the stored schema (lenient) and patches (strict). */
const fields = {
  /** Local scripts post to this port, so it only changes when the user says so. */
  port: z.number().int().min(1024).max(65535),
  /** Listen on all interfaces instead of 127.0.0.1 (see the LAN warning). */
  listenOnLan: z.boolean(),
  startAtLogin: z.boolean(),
  /** Closing the window hides it; Herald keeps receiving in the tray. */
  minimizeToTray: z.boolean(),
  /** Native notification for each new hosted message. */
  notifications: z.boolean(),
  /** Silences notifications without turning them off. */
  doNotDisturb: z.boolean(),
  /**
   * The packaged app obeys HERALD_DATABASE_URL and HERALD_SECRET_KEY (and their _FILE twins)
   * only when this is true (main/packaged-environment.ts): set in config.json by hand, for a
   * desktop app meant to share a team's PostgreSQL database or key.
   */
  databaseFromEnvironment: z.boolean(),
};

/**
 * Settings of a fresh install where a tray shows. Close-to-tray is on there; where no tray is
 * known to show (main/tray-support.ts) it defaults to off: see {@link defaultDesktopSettings}.
 */
export const DEFAULT_DESKTOP_SETTINGS = {
  port: 8765,
  listenOnLan: false,
  startAtLogin: false,
  minimizeToTray: true,
  notifications: true,
  doNotDisturb: false,
  databaseFromEnvironment: false,
} as const satisfies { [K in keyof typeof fields]: z.infer<(typeof fields)[K]> };

/** The desktop settings. */
export type DesktopSettings = { [K in keyof typeof fields]: z.infer<(typeof fields)[K]> };

/**
 * defaultDesktopSettings() gives this machine's defaults: close-to-tray only where a tray icon
 * will show, since closing the window otherwise hides Herald with nothing to click to get it
 * back.
 */
export function defaultDesktopSettings(traySupported: boolean): DesktopSettings {
  return { ...DEFAULT_DESKTOP_SETTINGS, minimizeToTray: traySupported };
}

/**
 * The file on disk may have been edited by hand or written by another version: each field
 * that does not validate falls back to its default on its own, so one bad value never resets
 * the others and never stops Herald from starting. A missing field takes the default too.
 */
export function storedDesktopSettingsSchema(defaults: DesktopSettings = DEFAULT_DESKTOP_SETTINGS) {
  return z.object({
    port: fields.port.catch(defaults.port),
    listenOnLan: fields.listenOnLan.catch(defaults.listenOnLan),
    startAtLogin: fields.startAtLogin.catch(defaults.startAtLogin),
    minimizeToTray: fields.minimizeToTray.catch(defaults.minimizeToTray),
    notifications: fields.notifications.catch(defaults.notifications),
    doNotDisturb: fields.doNotDisturb.catch(defaults.doNotDisturb),
    databaseFromEnvironment: fields.databaseFromEnvironment.catch(defaults.databaseFromEnvironment),
  });
}

/** A change from the renderer or the tray: known fields only, each valid. */
export const desktopSettingsPatchSchema = z.object(fields).partial().strict();
export type DesktopSettingsPatch = z.infer<typeof desktopSettingsPatchSchema>;

/** Fields that only take effect when the embedded server starts again. */
export const RESTART_FIELDS: ReadonlySet<keyof DesktopSettings> = new Set([
  'port',
  'listenOnLan',
  'databaseFromEnvironment',
]);

/** readStoredSettings() turns whatever the file holds into complete, valid settings. */
export function readStoredSettings(
  raw: unknown,
  defaults: DesktopSettings = DEFAULT_DESKTOP_SETTINGS,
): DesktopSettings {
  const source = raw !== null && typeof raw === 'object' ? raw : {};
  return storedDesktopSettingsSchema(defaults).parse(source);
}

/** The part of electron-store (a `conf` instance) settings use. */
export interface SettingsStoreLike {
  readonly store: Record<string, unknown>;
  set(values: Record<string, unknown>): void;
}

/** Result of applying a patch. */
export interface SettingsUpdate {
  settings: DesktopSettings;
  /** Fields whose value really changed. */
  changed: Array<keyof DesktopSettings>;
  /** True when a changed field needs the server restarted (port, LAN). */
  restartRequired: boolean;
}

/** Live settings over a store, with change notifications for the tray and the notifier. */
export interface DesktopSettingsService {
  get(): DesktopSettings;
  /** Validates `patch` (throws a ZodError when invalid), saves it, and reports what changed. */
  update(patch: unknown): SettingsUpdate;
  onChange(listener: (update: SettingsUpdate) => void): () => void;
}

/**
 * createDesktopSettings() reads the store once and writes every accepted change through. Only
 * the fields the user changed are written, so a default that depends on the machine (the tray)
 * is not frozen into the file and still follows the machine on the next start.
 */
export function createDesktopSettings(
  store: SettingsStoreLike,
  defaults: DesktopSettings = DEFAULT_DESKTOP_SETTINGS,
): DesktopSettingsService {
  let current = readStoredSettings(store.store, defaults);
  const listeners = new Set<(update: SettingsUpdate) => void>();
  return {
    get: () => ({ ...current }),
    update(patch) {
      const parsed = desktopSettingsPatchSchema.parse(patch);
      const next: DesktopSettings = { ...current, ...parsed };
      const changed = (Object.keys(parsed) as Array<keyof DesktopSettings>).filter(
        (key) => next[key] !== current[key],
      );
      current = next;
      if (changed.length > 0) {
        store.set(Object.fromEntries(changed.map((key) => [key, current[key]])));
      }
      const update: SettingsUpdate = {
        settings: { ...current },
        changed,
        restartRequired: changed.some((key) => RESTART_FIELDS.has(key)),
      };
      if (changed.length > 0) for (const listener of listeners) listener(update);
      return update;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

// The renderer's copy of the type (desktop-api.d.ts) must not drift from the schema.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const settingsTypesAgree: Same<DesktopSettings, DesktopSettingsForRenderer> = true;
void settingsTypesAgree;
