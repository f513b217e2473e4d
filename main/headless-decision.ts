/**
 * Whether `npm start` opens the desktop app or runs Herald headless, and why.
 * Pure so the launcher's choice is unit-tested on every platform from any machine.
 */

/** What the launcher knows about the machine it runs on. */
export interface LaunchEnvironment {
  /** `process.platform`. */
  platform: NodeJS.Platform;
  /** Path of the Electron binary, or null when it is not installed. */
  electronBinary: string | null;
  /** Why Electron is unavailable (the resolver's error), shown when `electronBinary` is null. */
  electronProblem?: string;
  /** The relevant environment variables. */
  env: { DISPLAY?: string; WAYLAND_DISPLAY?: string; HERALD_HEADLESS?: string };
  /** `--headless` on the command line. */
  headlessFlag: boolean;
}

/** The launcher's choice plus a sentence a person can act on. */
export type LaunchDecision =
  | { mode: 'electron'; electronBinary: string; reason: string }
  | { mode: 'headless'; reason: string };

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);

/** Reads HERALD_HEADLESS the way people write flags: 1/true/yes/on (any case) turn it on. */
export function isHeadlessForced(value: string | undefined): boolean {
  return value !== undefined && TRUTHY.has(value.trim().toLowerCase());
}

/**
 * macOS and Windows always have a window server for a logged-in user; every other platform
 * (Linux, the BSDs) needs an X11 or Wayland display, which a server or SSH session lacks.
 */
export function hasDisplay(
  platform: NodeJS.Platform,
  env: Pick<LaunchEnvironment['env'], 'DISPLAY' | 'WAYLAND_DISPLAY'>,
): boolean {
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY?.trim() || env.WAYLAND_DISPLAY?.trim());
}

/**
 * decideLaunchMode() picks Electron only when nothing forces headless, the binary exists and a
 * display is there; otherwise headless, with the first reason that applies.
 */
export function decideLaunchMode(input: LaunchEnvironment): LaunchDecision {
  if (input.headlessFlag) {
    return { mode: 'headless', reason: 'headless mode was requested with --headless' };
  }
  if (isHeadlessForced(input.env.HERALD_HEADLESS)) {
    return {
      mode: 'headless',
      reason: `headless mode was requested with HERALD_HEADLESS=${input.env.HERALD_HEADLESS}`,
    };
  }
  if (!input.electronBinary) {
    const detail = input.electronProblem ? ` (${input.electronProblem})` : '';
    return {
      mode: 'headless',
      reason:
        `Electron is not installed${detail}; it is an optional dependency that needs internet ` +
        'access at install time',
    };
  }
  if (!hasDisplay(input.platform, input.env)) {
    return {
      mode: 'headless',
      reason: 'no display is available (neither DISPLAY nor WAYLAND_DISPLAY is set)',
    };
  }
  return {
    mode: 'electron',
    electronBinary: input.electronBinary,
    reason: 'Electron is installed and a display is available',
  };
}
