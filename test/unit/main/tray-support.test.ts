import { describe, expect, it, vi } from 'vitest';

import {
  detectTraySupport,
  probeStatusNotifierWatcher,
  STATUS_NOTIFIER_WATCHER,
  trayFromDesktopName,
} from '../../../main/tray-support';

/** What `dbus-send --print-reply` prints for NameHasOwner, verbatim but for the numbers. */
const reply = (answer: 'true' | 'false'): string =>
  'method return time=1725800000.123456 sender=org.freedesktop.DBus -> ' +
  'destination=:1.234 serial=3 reply_serial=2\n' +
  `   boolean ${answer}\n`;

describe('trayFromDesktopName', () => {
  it('trayFromDesktopName() is true for desktops that ship a tray host', () => {
    expect(trayFromDesktopName('KDE')).toBe(true);
    expect(trayFromDesktopName('XFCE')).toBe(true);
    expect(trayFromDesktopName('X-Cinnamon')).toBe(true);
  });

  it('trayFromDesktopName() is true for Ubuntu’s GNOME session, which has the AppIndicator extension', () => {
    expect(trayFromDesktopName('ubuntu:GNOME')).toBe(true);
  });

  it('trayFromDesktopName() is false for stock GNOME, which has no tray host', () => {
    expect(trayFromDesktopName('GNOME')).toBe(false);
    expect(trayFromDesktopName('GNOME-Classic:GNOME')).toBe(false);
  });

  it('trayFromDesktopName() is false when the desktop is unknown or not named', () => {
    expect(trayFromDesktopName('')).toBe(false);
    expect(trayFromDesktopName(undefined)).toBe(false);
    expect(trayFromDesktopName(':')).toBe(false);
    expect(trayFromDesktopName('sway')).toBe(false);
  });

  it('trayFromDesktopName() ignores case and spaces around the tokens', () => {
    expect(trayFromDesktopName('kde')).toBe(true);
    expect(trayFromDesktopName('Xfce')).toBe(true);
    expect(trayFromDesktopName('GNOME: Ubuntu ')).toBe(true);
  });
});

describe('probeStatusNotifierWatcher', () => {
  it('probeStatusNotifierWatcher() asks the session bus whether the watcher name has an owner', async () => {
    const run = vi.fn(async (_file: string, _args: string[]) => reply('true'));

    await probeStatusNotifierWatcher(run);

    expect(run).toHaveBeenCalledTimes(1);
    const [file, args] = run.mock.calls[0] ?? [];
    expect(file).toBe('dbus-send');
    expect(args).toEqual([
      '--session',
      '--print-reply',
      '--reply-timeout=1000',
      '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.NameHasOwner',
      'string:org.kde.StatusNotifierWatcher',
    ]);
    expect(STATUS_NOTIFIER_WATCHER).toBe('org.kde.StatusNotifierWatcher');
  });

  it('probeStatusNotifierWatcher() is true for dbus-send’s "boolean true" reply', async () => {
    await expect(probeStatusNotifierWatcher(async () => reply('true'))).resolves.toBe(true);
  });

  it('probeStatusNotifierWatcher() is false for dbus-send’s "boolean false" reply', async () => {
    await expect(probeStatusNotifierWatcher(async () => reply('false'))).resolves.toBe(false);
  });

  it('probeStatusNotifierWatcher() is null for a reply it cannot read', async () => {
    await expect(probeStatusNotifierWatcher(async () => '')).resolves.toBeNull();
    await expect(
      probeStatusNotifierWatcher(async () => 'method return time=1 sender=x\n   string "yes"\n'),
    ).resolves.toBeNull();
  });

  it('probeStatusNotifierWatcher() is null when dbus-send fails or is missing', async () => {
    const missing = Object.assign(new Error('spawn dbus-send ENOENT'), { code: 'ENOENT' });
    await expect(probeStatusNotifierWatcher(() => Promise.reject(missing))).resolves.toBeNull();
  });

  it('probeStatusNotifierWatcher() answers on this machine with the real dbus-send, or null', async () => {
    // Usually no session bus (or no dbus-send) here: the point is that it settles, never throws.
    const answer = await probeStatusNotifierWatcher();
    expect(answer === null || typeof answer === 'boolean').toBe(true);
  });
});

describe('detectTraySupport', () => {
  it('detectTraySupport() is true on macOS and Windows without asking the bus', async () => {
    const probe = vi.fn(async () => false);

    await expect(detectTraySupport('darwin', {}, probe)).resolves.toBe(true);
    await expect(detectTraySupport('win32', {}, probe)).resolves.toBe(true);
    expect(probe).not.toHaveBeenCalled();
  });

  it('detectTraySupport() on Linux believes the bus over the desktop’s name', async () => {
    // The bus knows better: a GNOME with the AppIndicator extension, a KDE without its host.
    await expect(
      detectTraySupport('linux', { XDG_CURRENT_DESKTOP: 'GNOME' }, async () => true),
    ).resolves.toBe(true);
    await expect(
      detectTraySupport('linux', { XDG_CURRENT_DESKTOP: 'KDE' }, async () => false),
    ).resolves.toBe(false);
  });

  it('detectTraySupport() on Linux falls back to the desktop’s name when the bus has no answer', async () => {
    const probe = vi.fn(async () => null);

    await expect(detectTraySupport('linux', { XDG_CURRENT_DESKTOP: 'KDE' }, probe)).resolves.toBe(
      true,
    );
    await expect(detectTraySupport('linux', { XDG_CURRENT_DESKTOP: 'GNOME' }, probe)).resolves.toBe(
      false,
    );
    await expect(detectTraySupport('linux', {}, probe)).resolves.toBe(false);
    expect(probe).toHaveBeenCalledTimes(3);
  });

  it('detectTraySupport() asks the bus on the BSDs too', async () => {
    await expect(detectTraySupport('freebsd', {}, async () => true)).resolves.toBe(true);
  });
});
