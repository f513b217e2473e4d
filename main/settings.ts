import { z } from 'zod';

import type { DesktopSettings as DesktopSettingsForRenderer } from './preload/desktop-api';

/**
 * Desktop settings (electron-store, `config.json` in the user-data folder): how the window and
 * the embedded server behave on this machine. Server-side settings (retries, limits) live in
 * the database and the console, not here.
 */

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
};

/** Settings of a fresh install. */
export const DEFAULT_DESKTOP_SETTINGS = {
  port: 8765,
  listenOnLan: false,
  startAtLogin: false,
  minimizeToTray: true,
  notifications: true,
  doNotDisturb: false,
} as const satisfies { [K in keyof typeof fields]: z.infer<(typeof fields)[K]> };

/** Settings with every missing field filled from the defaults; invalid values are rejected. */
export const desktopSettingsSchema = z.object({
  port: fields.port.default(DEFAULT_DESKTOP_SETTINGS.port),
  listenOnLan: fields.listenOnLan.default(DEFAULT_DESKTOP_SETTINGS.listenOnLan),
  startAtLogin: fields.startAtLogin.default(DEFAULT_DESKTOP_SETTINGS.startAtLogin),
  minimizeToTray: fields.minimizeToTray.default(DEFAULT_DESKTOP_SETTINGS.minimizeToTray),
  notifications: fields.notifications.default(DEFAULT_DESKTOP_SETTINGS.notifications),
  doNotDisturb: fields.doNotDisturb.default(DEFAULT_DESKTOP_SETTINGS.doNotDisturb),
});

/** The desktop settings. */
export type DesktopSettings = z.infer<typeof desktopSettingsSchema>;

/**
 * The file on disk may have been edited by hand or written by another version: each field
 * that does not validate falls back to its default on its own, so one bad value never resets
 * the others and never stops Herald from starting.
 */
export const storedDesktopSettingsSchema = z.object({
  port: fields.port.catch(DEFAULT_DESKTOP_SETTINGS.port),
  listenOnLan: fields.listenOnLan.catch(DEFAULT_DESKTOP_SETTINGS.listenOnLan),
  startAtLogin: fields.startAtLogin.catch(DEFAULT_DESKTOP_SETTINGS.startAtLogin),
  minimizeToTray: fields.minimizeToTray.catch(DEFAULT_DESKTOP_SETTINGS.minimizeToTray),
  notifications: fields.notifications.catch(DEFAULT_DESKTOP_SETTINGS.notifications),
  doNotDisturb: fields.doNotDisturb.catch(DEFAULT_DESKTOP_SETTINGS.doNotDisturb),
});

/** A change from the renderer or the tray: known fields only, each valid. */
export const desktopSettingsPatchSchema = z.object(fields).partial().strict();
export type DesktopSettingsPatch = z.infer<typeof desktopSettingsPatchSchema>;

/** Fields that only take effect when the embedded server starts again. */
export const RESTART_FIELDS: ReadonlySet<keyof DesktopSettings> = new Set(['port', 'listenOnLan']);

/** readStoredSettings() turns whatever the file holds into complete, valid settings. */
export function readStoredSettings(raw: unknown): DesktopSettings {
  const source = raw !== null && typeof raw === 'object' ? raw : {};
  return storedDesktopSettingsSchema.parse(source);
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

/** createDesktopSettings() reads the store once and writes every accepted change through. */
export function createDesktopSettings(store: SettingsStoreLike): DesktopSettingsService {
  let current = readStoredSettings(store.store);
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
      if (changed.length > 0) store.set({ ...current });
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
