import { describe, expect, it } from 'vitest';

import {
  decideLaunchMode,
  hasDisplay,
  isHeadlessForced,
  type LaunchEnvironment,
} from '../../../main/headless-decision';

const BINARY = '/repo/node_modules/electron/dist/electron';

const desktopLinux: LaunchEnvironment = {
  platform: 'linux',
  electron: { state: 'installed', binary: BINARY },
  env: { DISPLAY: ':0' },
  headlessFlag: false,
};

/** Electron's own words when its package is there without the binary it should download. */
const ELECTRON_OWN_ERROR =
  'Electron failed to install correctly, please delete node_modules/electron and try installing again';

describe('decideLaunchMode', () => {
  it('decideLaunchMode() picks Electron when it is installed and a display exists', () => {
    const decision = decideLaunchMode(desktopLinux);

    expect(decision).toEqual({
      mode: 'electron',
      electronBinary: BINARY,
      reason: 'Electron is installed and a display is available',
    });
  });

  it('decideLaunchMode() says plainly that Electron is not installed, as on a server, and how to get the window', () => {
    const noPackage = decideLaunchMode({
      ...desktopLinux,
      electron: { state: 'absent', packagePresent: false },
    });
    expect(noPackage).toEqual({
      mode: 'headless',
      reason:
        "Electron isn't installed, which is expected on a server: Herald serves its console to your browser instead of opening a window",
      advice:
        'For the desktop window instead, on a computer with a display and internet access, run `npm install` (Electron is an optional dependency it downloads), then `npm start` again.',
    });

    // npm left the package without its binary: the same words, and the download as the way out.
    const noBinary = decideLaunchMode({
      ...desktopLinux,
      env: {},
      electron: { state: 'absent', packagePresent: true },
    });
    expect(noBinary.mode).toBe('headless');
    expect(noBinary.reason).toBe(noPackage.reason);
    expect(noBinary.mode === 'headless' && noBinary.advice).toContain(
      'download its binary with `node node_modules/electron/install.js`',
    );
    for (const decision of [noPackage, noBinary]) {
      const printed = JSON.stringify(decision);
      expect(printed).not.toContain('failed to install');
      expect(printed).not.toContain('Cannot find module');
    }
  });

  it('decideLaunchMode() keeps the raw error, and says how to repair, when Electron is installed but broken', () => {
    const decision = decideLaunchMode({
      ...desktopLinux,
      electron: { state: 'broken', error: `its binary is missing at ${BINARY}` },
    });

    expect(decision).toEqual({
      mode: 'headless',
      reason: `Electron is installed but cannot start (its binary is missing at ${BINARY})`,
      advice:
        'To repair it for the desktop window: delete node_modules/electron and run `npm install` with internet access, then `npm start` again.',
    });
    expect(
      decideLaunchMode({
        ...desktopLinux,
        electron: { state: 'broken', error: ELECTRON_OWN_ERROR },
      }).reason,
    ).toContain(ELECTRON_OWN_ERROR);
  });

  it('decideLaunchMode() runs headless on Linux without DISPLAY or WAYLAND_DISPLAY', () => {
    const decision = decideLaunchMode({ ...desktopLinux, env: {} });

    expect(decision).toEqual({
      mode: 'headless',
      reason: 'no display is available (neither DISPLAY nor WAYLAND_DISPLAY is set)',
    });
  });

  it('decideLaunchMode() accepts a Wayland-only session as a display', () => {
    expect(decideLaunchMode({ ...desktopLinux, env: { WAYLAND_DISPLAY: 'wayland-0' } }).mode).toBe(
      'electron',
    );
  });

  it('decideLaunchMode() needs no DISPLAY on macOS and Windows', () => {
    expect(decideLaunchMode({ ...desktopLinux, platform: 'darwin', env: {} }).mode).toBe(
      'electron',
    );
    expect(decideLaunchMode({ ...desktopLinux, platform: 'win32', env: {} }).mode).toBe('electron');
  });

  it('decideLaunchMode() honours --headless before anything else', () => {
    const decision = decideLaunchMode({ ...desktopLinux, headlessFlag: true });

    expect(decision).toEqual({
      mode: 'headless',
      reason: 'headless mode was requested with --headless',
    });
  });

  it('decideLaunchMode() honours HERALD_HEADLESS=1 and names the variable', () => {
    const decision = decideLaunchMode({
      ...desktopLinux,
      env: { DISPLAY: ':0', HERALD_HEADLESS: '1' },
    });

    expect(decision.mode).toBe('headless');
    expect(decision.reason).toBe('headless mode was requested with HERALD_HEADLESS=1');
  });

  it('decideLaunchMode() ignores HERALD_HEADLESS=0', () => {
    expect(
      decideLaunchMode({ ...desktopLinux, env: { DISPLAY: ':0', HERALD_HEADLESS: '0' } }).mode,
    ).toBe('electron');
  });
});

describe('isHeadlessForced', () => {
  it('isHeadlessForced() reads 1/true/yes/on in any case as on and the rest as off', () => {
    for (const on of ['1', 'true', 'TRUE', ' yes ', 'On']) expect(isHeadlessForced(on)).toBe(true);
    for (const off of [undefined, '', '0', 'false', 'no', 'off']) {
      expect(isHeadlessForced(off)).toBe(false);
    }
  });
});

describe('hasDisplay', () => {
  it('hasDisplay() treats a blank DISPLAY as no display on Linux and the BSDs', () => {
    expect(hasDisplay('linux', { DISPLAY: '  ' })).toBe(false);
    expect(hasDisplay('freebsd', { DISPLAY: ':1' })).toBe(true);
  });
});
