import { describe, expect, it } from 'vitest';

import {
  decideLaunchMode,
  hasDisplay,
  isHeadlessForced,
  type LaunchEnvironment,
} from '../../../main/headless-decision';

const desktopLinux: LaunchEnvironment = {
  platform: 'linux',
  electronBinary: '/repo/node_modules/electron/dist/electron',
  env: { DISPLAY: ':0' },
  headlessFlag: false,
};

describe('decideLaunchMode', () => {
  it('decideLaunchMode() picks Electron when it is installed and a display exists', () => {
    const decision = decideLaunchMode(desktopLinux);

    expect(decision).toEqual({
      mode: 'electron',
      electronBinary: desktopLinux.electronBinary,
      reason: 'Electron is installed and a display is available',
    });
  });

  it('decideLaunchMode() runs headless with the resolver error when Electron is not installed', () => {
    const decision = decideLaunchMode({
      ...desktopLinux,
      electronBinary: null,
      electronProblem: "Cannot find module 'electron'",
    });

    expect(decision.mode).toBe('headless');
    expect(decision.reason).toContain('Electron is not installed');
    expect(decision.reason).toContain("Cannot find module 'electron'");
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
