import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

import { IpcChannel } from '../../../main/ipc/channels';
import { registerReaderHandlers } from '../../../main/ipc/handlers/reader';
import { registerServerInfoHandlers } from '../../../main/ipc/handlers/server-info';
import { registerSettingsHandlers } from '../../../main/ipc/handlers/settings';
import { registerShellHandlers } from '../../../main/ipc/handlers/shell';
import {
  IpcArgumentError,
  createIpcRegistrar,
  isTrustedSender,
  noArgs,
  type IpcEventLike,
  type IpcMainLike,
} from '../../../main/ipc/ipc-main';
import { createDesktopSettings } from '../../../main/settings';

const ORIGIN = 'http://127.0.0.1:8765';
const WINDOW_ID = 7;

/** An ipcMain that keeps handlers and lets a test play the renderer. */
function fakeIpcMain() {
  const handlers = new Map<string, (event: IpcEventLike, ...args: unknown[]) => unknown>();
  const listeners = new Map<string, Array<(event: IpcEventLike, ...args: unknown[]) => void>>();
  const ipcMain: IpcMainLike = {
    handle(channel, listener) {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, listener);
    },
    removeHandler: (channel) => void handlers.delete(channel),
    on(channel, listener) {
      listeners.set(channel, [...(listeners.get(channel) ?? []), listener]);
    },
    removeAllListeners: (channel) => listeners.delete(channel),
  };
  return {
    ipcMain,
    handlers,
    listeners,
    invoke: async (event: IpcEventLike, channel: string, ...args: unknown[]) => {
      const handler = handlers.get(channel);
      if (!handler) throw new Error(`no handler for ${channel}`);
      return handler(event, ...args);
    },
    send: (event: IpcEventLike, channel: string, ...args: unknown[]) => {
      for (const listener of listeners.get(channel) ?? []) listener(event, ...args);
    },
  };
}

const fromWindow: IpcEventLike = {
  sender: { id: WINDOW_ID },
  senderFrame: { url: `${ORIGIN}/templates/3` },
};
const fromOtherWindow: IpcEventLike = { sender: { id: 99 }, senderFrame: { url: `${ORIGIN}/` } };
const fromForeignPage: IpcEventLike = {
  sender: { id: WINDOW_ID },
  senderFrame: { url: 'https://evil.example/' },
};
const fromGoneFrame: IpcEventLike = { sender: { id: WINDOW_ID }, senderFrame: null };

function setup() {
  const fake = fakeIpcMain();
  const warnings: string[] = [];
  const ipc = createIpcRegistrar(
    fake.ipcMain,
    { webContentsId: () => WINDOW_ID, origin: () => ORIGIN },
    { warn: (m) => warnings.push(m) },
  );
  return { ...fake, ipc, warnings };
}

describe('isTrustedSender', () => {
  const trusted = { webContentsId: () => WINDOW_ID, origin: () => ORIGIN };

  it('isTrustedSender() accepts the main window showing the server origin', () => {
    expect(isTrustedSender(fromWindow, trusted)).toBe(true);
  });

  it('isTrustedSender() rejects another WebContents, another origin and a gone frame', () => {
    expect(isTrustedSender(fromOtherWindow, trusted)).toBe(false);
    expect(isTrustedSender(fromForeignPage, trusted)).toBe(false);
    expect(isTrustedSender(fromGoneFrame, trusted)).toBe(false);
  });

  it('isTrustedSender() rejects everything before the window exists', () => {
    expect(isTrustedSender(fromWindow, { webContentsId: () => null, origin: () => ORIGIN })).toBe(
      false,
    );
  });

  it('isTrustedSender() rejects the same host on another port', () => {
    const otherPort = { sender: { id: WINDOW_ID }, senderFrame: { url: 'http://127.0.0.1:9999/' } };
    expect(isTrustedSender(otherPort, trusted)).toBe(false);
  });
});

describe('createIpcRegistrar', () => {
  it('handle() passes parsed arguments from the trusted window to the handler', async () => {
    const { ipc, invoke } = setup();
    const handler = vi.fn((n: number, s: string) => `${s}${n}`);
    ipc.handle(IpcChannel.getAppVersion, z.tuple([z.number(), z.string()]), handler);

    await expect(invoke(fromWindow, IpcChannel.getAppVersion, 2, 'v')).resolves.toBe('v2');
    expect(handler).toHaveBeenCalledWith(2, 'v');
  });

  it('handle() drops a message from an untrusted sender without calling the handler', async () => {
    const { ipc, invoke, warnings } = setup();
    const handler = vi.fn(() => 'secret');
    ipc.handle(IpcChannel.getAppVersion, noArgs, handler);

    await expect(invoke(fromOtherWindow, IpcChannel.getAppVersion)).resolves.toBeUndefined();
    await expect(invoke(fromForeignPage, IpcChannel.getAppVersion)).resolves.toBeUndefined();
    expect(handler).not.toHaveBeenCalled();
    expect(warnings).toEqual([
      'ipc: dropped desktop:get-app-version from an untrusted sender',
      'ipc: dropped desktop:get-app-version from an untrusted sender',
    ]);
  });

  it('handle() rejects invalid arguments with IpcArgumentError and never calls the handler', async () => {
    const { ipc, invoke } = setup();
    const handler = vi.fn();
    ipc.handle(IpcChannel.setDeliveriesPaused, z.tuple([z.boolean()]), handler);

    await expect(invoke(fromWindow, IpcChannel.setDeliveriesPaused, 'yes')).rejects.toBeInstanceOf(
      IpcArgumentError,
    );
    await expect(invoke(fromWindow, IpcChannel.setDeliveriesPaused)).rejects.toThrow(
      'invalid arguments for desktop:set-deliveries-paused',
    );
    await expect(invoke(fromWindow, IpcChannel.setDeliveriesPaused, true, 'extra')).rejects.toThrow(
      IpcArgumentError,
    );
    expect(handler).not.toHaveBeenCalled();
  });

  it('handle() replaces a previous handler on the same channel', async () => {
    const { ipc, invoke } = setup();
    ipc.handle(IpcChannel.getAppVersion, noArgs, () => 'old');
    ipc.handle(IpcChannel.getAppVersion, noArgs, () => 'new');

    await expect(invoke(fromWindow, IpcChannel.getAppVersion)).resolves.toBe('new');
  });

  it('on() delivers valid messages from the window and drops the rest', () => {
    const { ipc, send, warnings } = setup();
    const listener = vi.fn();
    ipc.on(IpcChannel.restartApp, z.tuple([z.string()]), listener);

    send(fromWindow, IpcChannel.restartApp, 'now');
    send(fromWindow, IpcChannel.restartApp, 42);
    send(fromOtherWindow, IpcChannel.restartApp, 'now');

    expect(listener).toHaveBeenCalledExactlyOnceWith('now');
    expect(warnings).toHaveLength(2);
  });

  it('dispose() removes every handler and listener it registered', () => {
    const { ipc, handlers, listeners } = setup();
    ipc.handle(IpcChannel.getAppVersion, noArgs, () => '1');
    ipc.on(IpcChannel.restartApp, noArgs, () => undefined);

    ipc.dispose();

    expect(handlers.size).toBe(0);
    expect(listeners.size).toBe(0);
  });
});

describe('registerReaderHandlers', () => {
  function readerSetup() {
    const base = setup();
    const deps = { readerReady: vi.fn(), unreadChanged: vi.fn(async () => undefined) };
    registerReaderHandlers(base.ipc, deps);
    return { ...base, deps };
  }

  it('readerReady is heard only from the window, and only without arguments', () => {
    const { send, deps, warnings } = readerSetup();

    send(fromForeignPage, IpcChannel.readerReady);
    send(fromWindow, IpcChannel.readerReady, 'extra');
    expect(deps.readerReady).not.toHaveBeenCalled();
    expect(warnings).toHaveLength(2);

    send(fromWindow, IpcChannel.readerReady);
    expect(deps.readerReady).toHaveBeenCalledTimes(1);
  });

  it('unreadChanged re-reads the count for the window and ignores other senders', async () => {
    const { invoke, deps } = readerSetup();

    await expect(invoke(fromOtherWindow, IpcChannel.unreadChanged)).resolves.toBeUndefined();
    expect(deps.unreadChanged).not.toHaveBeenCalled();
    await expect(invoke(fromWindow, IpcChannel.unreadChanged, 3)).rejects.toBeInstanceOf(
      IpcArgumentError,
    );
    expect(deps.unreadChanged).not.toHaveBeenCalled();

    await invoke(fromWindow, IpcChannel.unreadChanged);
    expect(deps.unreadChanged).toHaveBeenCalledTimes(1);
  });
});

describe('registerShellHandlers', () => {
  function shellSetup(openPathResult = '') {
    const base = setup();
    const shell = {
      openExternal: vi.fn(async () => undefined),
      openPath: vi.fn(async () => openPathResult),
    };
    registerShellHandlers(base.ipc, { shell, dataDir: '/data/herald' });
    return { ...base, shell };
  }

  it('openExternal opens an http(s) URL and answers true', async () => {
    const { invoke, shell } = shellSetup();

    await expect(
      invoke(fromWindow, IpcChannel.openExternal, 'https://example.com/a b'),
    ).resolves.toBe(true);
    expect(shell.openExternal).toHaveBeenCalledWith('https://example.com/a%20b');
  });

  it('openExternal refuses file:, javascript: and custom protocols and answers false', async () => {
    const { invoke, shell } = shellSetup();

    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://host/share',
      'ms-settings:',
    ]) {
      await expect(invoke(fromWindow, IpcChannel.openExternal, url)).resolves.toBe(false);
    }
    expect(shell.openExternal).not.toHaveBeenCalled();
  });

  it('openExternal rejects a non-string argument', async () => {
    const { invoke } = shellSetup();

    await expect(
      invoke(fromWindow, IpcChannel.openExternal, { href: 'https://x' }),
    ).rejects.toThrow(IpcArgumentError);
  });

  it('revealDataFolder opens main’s own data folder and ignores any argument', async () => {
    const { invoke, shell } = shellSetup();

    await invoke(fromWindow, IpcChannel.revealDataFolder);
    await expect(invoke(fromWindow, IpcChannel.revealDataFolder, '/etc')).rejects.toThrow(
      IpcArgumentError,
    );

    expect(shell.openPath).toHaveBeenCalledExactlyOnceWith('/data/herald');
  });

  it('revealDataFolder rejects with the OS error when the folder cannot be opened', async () => {
    const { invoke } = shellSetup('no file manager');

    await expect(invoke(fromWindow, IpcChannel.revealDataFolder)).rejects.toThrow(
      'no file manager',
    );
  });
});

describe('registerServerInfoHandlers', () => {
  it('setDeliveriesPaused passes a boolean through and answers the new state', async () => {
    const { ipc, invoke } = setup();
    let paused = false;
    registerServerInfoHandlers(ipc, {
      serverInfo: () => ({
        url: ORIGIN,
        port: 8765,
        listenOnLan: false,
        lanUrls: [],
        dataDir: '/d',
        platform: 'linux',
        trayShown: true,
        deliveriesPaused: paused,
        database: { dialect: 'sqlite', location: '/d/herald.db' },
        ignoredDatabaseVariables: [],
        settingsFile: '/config.json',
      }),
      setDeliveriesPaused: (p) => (paused = p),
    });

    await expect(invoke(fromWindow, IpcChannel.setDeliveriesPaused, true)).resolves.toBe(true);
    await expect(invoke(fromWindow, IpcChannel.getServerInfo)).resolves.toMatchObject({
      deliveriesPaused: true,
    });
  });
});

describe('registerSettingsHandlers', () => {
  function settingsSetup(confirm: boolean) {
    const base = setup();
    const saved: Record<string, unknown>[] = [];
    const settings = createDesktopSettings({ store: {}, set: (v) => void saved.push(v) });
    const confirmLan = vi.fn(async () => confirm);
    const restart = vi.fn();
    const loginItemState = vi.fn(async () => ({
      supported: true,
      openAtLogin: true,
      attention: 'requires-approval' as const,
    }));
    registerSettingsHandlers(base.ipc, { settings, confirmLan, restart, loginItemState });
    return { ...base, settings, confirmLan, restart, saved };
  }

  it('getLoginItem answers what the OS has, and takes no arguments', async () => {
    const { invoke } = settingsSetup(true);

    await expect(invoke(fromWindow, IpcChannel.getLoginItem)).resolves.toEqual({
      supported: true,
      openAtLogin: true,
      attention: 'requires-approval',
    });
    await expect(invoke(fromWindow, IpcChannel.getLoginItem, 'extra')).rejects.toThrow();
  });

  it('updateSettings saves a valid patch and reports when a restart is needed', async () => {
    const { invoke, saved } = settingsSetup(true);

    const result = await invoke(fromWindow, IpcChannel.updateSettings, { port: 9000 });

    expect(result).toMatchObject({
      applied: true,
      restartRequired: true,
      settings: { port: 9000 },
    });
    expect(saved.at(-1)).toMatchObject({ port: 9000 });
  });

  it('updateSettings asks before turning the LAN on and changes nothing when declined', async () => {
    const { invoke, confirmLan, settings, saved } = settingsSetup(false);

    const result = await invoke(fromWindow, IpcChannel.updateSettings, { listenOnLan: true });

    expect(confirmLan).toHaveBeenCalledExactlyOnceWith(8765);
    expect(result).toMatchObject({ applied: false, restartRequired: false });
    expect(settings.get().listenOnLan).toBe(false);
    expect(saved).toHaveLength(0);
  });

  it('updateSettings turns the LAN on once the user accepts the warning', async () => {
    const { invoke, settings } = settingsSetup(true);

    await invoke(fromWindow, IpcChannel.updateSettings, { listenOnLan: true });

    expect(settings.get().listenOnLan).toBe(true);
  });

  it('updateSettings rejects unknown fields and out-of-range values', async () => {
    const { invoke } = settingsSetup(true);

    await expect(invoke(fromWindow, IpcChannel.updateSettings, { port: 80 })).rejects.toThrow(
      IpcArgumentError,
    );
    await expect(
      invoke(fromWindow, IpcChannel.updateSettings, { dataDir: '/tmp' }),
    ).rejects.toThrow(IpcArgumentError);
  });

  it('restartApp restarts only for the trusted window', async () => {
    const { invoke, restart } = settingsSetup(true);

    await invoke(fromForeignPage, IpcChannel.restartApp);
    await invoke(fromWindow, IpcChannel.restartApp);

    expect(restart).toHaveBeenCalledOnce();
  });
});
