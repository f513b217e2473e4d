import { describe, expect, it, vi } from 'vitest';

import {
  getMainWindowOptions,
  revealWindow,
  shouldHideOnClose,
  type BrowserWindowLike,
} from '../../../main/window';

describe('getMainWindowOptions', () => {
  it('getMainWindowOptions() isolates and sandboxes the renderer with Node turned off', () => {
    const options = getMainWindowOptions({ preloadPath: '/app/out/preload/index.cjs' });

    expect(options.webPreferences).toEqual({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      // Chromium's spellchecker downloads dictionaries from a Google CDN on Linux and Windows.
      spellcheck: false,
    });
  });

  it('getMainWindowOptions() starts hidden so the window shows only once painted', () => {
    const options = getMainWindowOptions({ preloadPath: '/p.cjs' });

    expect(options.show).toBe(false);
    expect(options.title).toBe('Herald');
  });

  it('getMainWindowOptions() sets the icon only when one is given', () => {
    expect(getMainWindowOptions({ preloadPath: '/p.cjs' })).not.toHaveProperty('icon');
    expect(getMainWindowOptions({ preloadPath: '/p.cjs', iconPath: '/i.png' }).icon).toBe('/i.png');
  });
});

describe('shouldHideOnClose', () => {
  it('shouldHideOnClose() hides the window when minimise-to-tray is on, a tray exists and Herald is not quitting', () => {
    expect(shouldHideOnClose({ minimizeToTray: true, hasTray: true, quitting: false })).toBe(true);
  });

  it('shouldHideOnClose() lets the window close while quitting, without a tray, or with minimise-to-tray off', () => {
    expect(shouldHideOnClose({ minimizeToTray: true, hasTray: true, quitting: true })).toBe(false);
    expect(shouldHideOnClose({ minimizeToTray: true, hasTray: false, quitting: false })).toBe(
      false,
    );
    expect(shouldHideOnClose({ minimizeToTray: false, hasTray: true, quitting: false })).toBe(
      false,
    );
  });
});

function fakeWindow(state: { minimized: boolean; destroyed: boolean }) {
  return {
    webContents: { id: 1 },
    show: vi.fn(),
    hide: vi.fn(),
    focus: vi.fn(),
    restore: vi.fn(),
    isMinimized: () => state.minimized,
    minimize: vi.fn(),
    isVisible: () => !state.minimized,
    isDestroyed: () => state.destroyed,
    loadURL: vi.fn(async () => undefined),
    once: vi.fn(),
    on: vi.fn(),
  } satisfies BrowserWindowLike;
}

describe('revealWindow', () => {
  it('revealWindow() restores a minimised window, then shows and focuses it', () => {
    const win = fakeWindow({ minimized: true, destroyed: false });

    revealWindow(win);

    expect(win.restore).toHaveBeenCalledOnce();
    expect(win.show).toHaveBeenCalledOnce();
    expect(win.focus).toHaveBeenCalledOnce();
  });

  it('revealWindow() does nothing for a destroyed or missing window', () => {
    const win = fakeWindow({ minimized: false, destroyed: true });

    revealWindow(win);
    revealWindow(null);

    expect(win.show).not.toHaveBeenCalled();
  });
});
