/**
 * Whether `npm start` opens the desktop app or runs Herald headless, and why.
 * Pure so the launcher's choice is unit-tested on every platform from any machine.
 */

/**
 * Where Electron stands on this machine (scripts/launcher.ts locateElectron finds out).
 * `absent` is the usual state of a server: Electron is an optional dependency whose install
 * script downloads a whole Chromium, which an offline install, `--omit=optional`,
 * ELECTRON_SKIP_BINARY_DOWNLOAD or an install without scripts leaves out. `packagePresent`
 * says whether npm put the package there without its binary (its own error then reads
 * "Electron failed to install correctly…", which is wrong about what happened and not shown).
 * `broken` is an install that should work and does not: its raw error is for whoever fixes it.
 */
export type ElectronInstall =
  | { state: 'installed'; binary: string }
  | { state: 'absent'; packagePresent: boolean }
  | { state: 'broken'; error: string };

/** What the launcher knows about the machine it runs on. */
export interface LaunchEnvironment {
  /** `process.platform`. */
  platform: NodeJS.Platform;
  electron: ElectronInstall;
  /** The relevant environment variables. */
  env: { DISPLAY?: string; WAYLAND_DISPLAY?: string; HERALD_HEADLESS?: string };
  /** `--headless` on the command line. */
  headlessFlag: boolean;
}

/**
 * The launcher's choice plus a sentence a person can act on; `advice`, when there is a way to
 * the desktop window, says what to do.
 */
export type LaunchDecision =
  | { mode: 'electron'; electronBinary: string; reason: string }
  | { mode: 'headless'; reason: string; advice?: string };

/** How to get the window when Electron is missing or broken. */
function electronAdvice(electron: Exclude<ElectronInstall, { state: 'installed' }>): string {
  if (electron.state === 'broken') {
    return (
      'To repair it for the desktop window: delete node_modules/electron and run `npm install` ' +
      'with internet access, then `npm start` again.'
    );
  }
  const download = electron.packagePresent
    ? 'download its binary with `node node_modules/electron/install.js`'
    : 'run `npm install` (Electron is an optional dependency it downloads)';
  return (
    'For the desktop window instead, on a computer with a display and internet access, ' +
    `${download}, then \`npm start\` again.`
  );
}

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
  const { electron } = input;
  if (electron.state === 'absent') {
    return {
      mode: 'headless',
      reason:
        "Electron isn't installed, which is expected on a server: Herald serves its console " +
        'to your browser instead of opening a window',
      advice: electronAdvice(electron),
    };
  }
  if (electron.state === 'broken') {
    return {
      mode: 'headless',
      reason: `Electron is installed but cannot start (${electron.error})`,
      advice: electronAdvice(electron),
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
    electronBinary: electron.binary,
    reason: 'Electron is installed and a display is available',
  };
}
