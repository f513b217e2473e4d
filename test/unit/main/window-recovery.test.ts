import { describe, expect, it } from 'vitest';

import {
  CRASH_WINDOW_MS,
  crashResponse,
  isAbortedLoad,
  loadFailureDialog,
  windowCrashDialog,
} from '../../../main/window-recovery';

/** The error Electron's loadURL rejects with: an Error carrying Chromium's net error and the URL. */
function loadError(code: string, errno: number, url: string): Error {
  return Object.assign(new Error(`${code} (${errno}) loading '${url}'`), { code, errno, url });
}

const NOW = 1_725_800_000_000;

describe('crashResponse', () => {
  it('crashResponse() ignores a clean exit, which is the window closing', () => {
    expect(crashResponse('clean-exit', null, NOW)).toBe('ignore');
    expect(crashResponse('clean-exit', NOW - 1_000, NOW)).toBe('ignore');
  });

  it('crashResponse() reloads after a first crash', () => {
    expect(crashResponse('crashed', null, NOW)).toBe('reload');
    expect(crashResponse('oom', null, NOW)).toBe('reload');
  });

  it('crashResponse() asks after a second crash within CRASH_WINDOW_MS', () => {
    expect(crashResponse('crashed', NOW - 1_000, NOW)).toBe('ask');
    expect(crashResponse('crashed', NOW - (CRASH_WINDOW_MS - 1), NOW)).toBe('ask');
  });

  it('crashResponse() reloads again when the earlier crash is CRASH_WINDOW_MS or more ago', () => {
    expect(crashResponse('crashed', NOW - CRASH_WINDOW_MS, NOW)).toBe('reload');
    expect(crashResponse('crashed', NOW - 60 * 60_000, NOW)).toBe('reload');
  });
});

describe('windowCrashDialog', () => {
  it('windowCrashDialog() offers Reload first and Quit second, naming the reason', () => {
    const { spec } = windowCrashDialog('oom');

    expect(spec.buttons).toEqual(['Reload window', 'Quit Herald']);
    expect(spec.defaultId).toBe(0);
    expect(spec.cancelId).toBe(0);
    expect(spec.type).toBe('error');
    expect(spec.detail).toContain('(oom)');
  });

  it('windowCrashDialog() reloads on Reload and on a dismissed box, and quits only on Quit', () => {
    const dialog = windowCrashDialog('crashed');

    expect(dialog.reload(0)).toBe(true);
    expect(dialog.reload(dialog.spec.cancelId)).toBe(true);
    expect(dialog.reload(1)).toBe(false);
  });
});

describe('isAbortedLoad', () => {
  it('isAbortedLoad() is true for Electron’s ERR_ABORTED rejection', () => {
    expect(isAbortedLoad(loadError('ERR_ABORTED', -3, 'http://127.0.0.1:8765/'))).toBe(true);
  });

  it('isAbortedLoad() recognises ERR_ABORTED by its code or its errno alone', () => {
    expect(isAbortedLoad({ code: 'ERR_ABORTED' })).toBe(true);
    expect(isAbortedLoad({ errno: -3 })).toBe(true);
  });

  it('isAbortedLoad() is false for a real failure and for values that are no load error', () => {
    expect(isAbortedLoad(loadError('ERR_CONNECTION_REFUSED', -102, 'http://127.0.0.1:8765/'))).toBe(
      false,
    );
    expect(isAbortedLoad(new Error('boom'))).toBe(false);
    expect(isAbortedLoad(null)).toBe(false);
    expect(isAbortedLoad(undefined)).toBe(false);
  });
});

describe('loadFailureDialog', () => {
  const url = 'http://127.0.0.1:8765/login?secret=abc';

  it('loadFailureDialog() names the origin and the net error, never the path or the sign-in secret', () => {
    const { spec } = loadFailureDialog(url, loadError('ERR_CONNECTION_REFUSED', -102, url));
    const shown = `${spec.title}\n${spec.message}\n${spec.detail}`;

    expect(spec.detail).toContain('http://127.0.0.1:8765');
    expect(spec.detail).toContain('(ERR_CONNECTION_REFUSED)');
    expect(shown).not.toContain('secret');
    expect(shown).not.toContain('abc');
    expect(shown).not.toContain('/login');
  });

  it('loadFailureDialog() never quotes an error message, which may hold the URL and its secret', () => {
    const leaky = new Error(`failed to load ${url}`);
    const detail = loadFailureDialog(url, leaky).spec.detail;
    expect(detail).toContain('(unknown error)');
    expect(detail).not.toContain('abc');
    expect(loadFailureDialog(url, 'nope').spec.detail).toContain('(unknown error)');
  });

  it('loadFailureDialog() tries again on Try again and on a dismissed box, and quits on Quit', () => {
    const dialog = loadFailureDialog(url, loadError('ERR_CONNECTION_REFUSED', -102, url));

    expect(dialog.spec.buttons).toEqual(['Try again', 'Quit Herald']);
    expect(dialog.spec.defaultId).toBe(0);
    expect(dialog.retry(0)).toBe(true);
    expect(dialog.retry(dialog.spec.cancelId)).toBe(true);
    expect(dialog.retry(1)).toBe(false);
  });
});
