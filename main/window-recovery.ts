import type { MessageBoxSpec } from './port-choice';

/**
 * What the window does when its page dies or cannot load. The server keeps running either way,
 * so a broken window must never mean a silently dead app: it is reloaded once, then the user
 * is asked.
 */

/** How long after one renderer crash a second one counts as "crashing again". */
export const CRASH_WINDOW_MS = 5 * 60_000;

/** What to do about a `render-process-gone`. */
export type CrashAction = 'ignore' | 'reload' | 'ask';

/**
 * crashResponse() decides from Electron's `details.reason` and when the last crash was: a clean
 * exit (the window is closing) needs nothing; a first crash reloads the page; a second one
 * within {@link CRASH_WINDOW_MS} asks the user instead of reloading into a loop.
 */
export function crashResponse(
  reason: string,
  lastCrashAt: number | null,
  now: number,
): CrashAction {
  if (reason === 'clean-exit') return 'ignore';
  if (lastCrashAt !== null && now - lastCrashAt < CRASH_WINDOW_MS) return 'ask';
  return 'reload';
}

/** windowCrashDialog() is the question after a repeated crash: reload (0) or quit (1). */
export function windowCrashDialog(reason: string): {
  spec: MessageBoxSpec;
  reload(response: number): boolean;
} {
  return {
    spec: {
      type: 'error',
      title: 'Herald: window stopped',
      message: 'Herald’s window stopped working again',
      detail:
        `Its page ended (${reason}) twice in a few minutes. Herald itself keeps running: ` +
        'messages are still received and delivered. Reload the window, or quit Herald. The log ' +
        'folder (tray → Open log folder) has the details.',
      buttons: ['Reload window', 'Quit Herald'],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    },
    reload: (response) => response !== 1,
  };
}

/** The error Electron's loadURL rejects with (it carries Chromium's net error). */
export interface LoadError {
  code?: string;
  errno?: number;
  message?: string;
}

/**
 * isAbortedLoad() is true for ERR_ABORTED: a load replaced by another navigation (the sign-in
 * page redirecting, a notification opening a message) rejects with it, and that is no failure.
 */
export function isAbortedLoad(err: unknown): boolean {
  const e = err as LoadError | null;
  return e?.code === 'ERR_ABORTED' || e?.errno === -3;
}

/** loadFailureDialog() is the question when the console did not load: retry (0) or quit (1). */
export function loadFailureDialog(
  url: string,
  err: unknown,
): { spec: MessageBoxSpec; retry(response: number): boolean } {
  // Chromium's code only: an error's message can quote the URL, one-time secret included.
  const cause = (err as LoadError | null)?.code ?? 'unknown error';
  return {
    spec: {
      type: 'error',
      title: 'Herald: console did not load',
      message: 'Herald’s window could not load the console',
      detail:
        `Loading ${new URL(url).origin} failed (${cause}). A firewall or security program that ` +
        'blocks connections to this computer (127.0.0.1) can cause this. Messages sent to ' +
        'Herald are still accepted if the server runs.',
      buttons: ['Try again', 'Quit Herald'],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    },
    retry: (response) => response !== 1,
  };
}
