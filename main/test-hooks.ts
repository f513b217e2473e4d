import type { NotificationText, NotifyOutcome } from './notifications';
import type { ShutdownStepResult } from './shutdown';
import type { TrayText } from './tray';

/**
 * State the Playwright `_electron` suite reads with `electronApp.evaluate(() =>
 * globalThis.__heraldTest)`: the readiness marker (instead of sleeps), notification requests
 * and the tray label, which no page can observe. Only installed in an unpackaged app started
 * with HERALD_TEST_HOOKS=1.
 */
export interface TestHooks {
  ready: boolean;
  serverUrl: string | null;
  windowUrl: string | null;
  notifications: Array<{ messageId: number; text: NotificationText; outcome: NotifyOutcome }>;
  tray: TrayText | null;
  unread: number | null;
  shutdown: ShutdownStepResult[] | null;
}

/** The global the hooks are published on. */
export const TEST_HOOKS_GLOBAL = '__heraldTest';

/** shouldInstallTestHooks() is true only for an unpackaged app with HERALD_TEST_HOOKS=1. */
export function shouldInstallTestHooks(
  isPackaged: boolean,
  env: Record<string, string | undefined>,
): boolean {
  return !isPackaged && env.HERALD_TEST_HOOKS === '1';
}

/** installTestHooks() publishes a fresh hooks object when allowed, else returns null. */
export function installTestHooks(
  isPackaged: boolean,
  env: Record<string, string | undefined>,
  target: Record<string, unknown> = globalThis as unknown as Record<string, unknown>,
): TestHooks | null {
  if (!shouldInstallTestHooks(isPackaged, env)) return null;
  const hooks: TestHooks = {
    ready: false,
    serverUrl: null,
    windowUrl: null,
    notifications: [],
    tray: null,
    unread: null,
    shutdown: null,
  };
  target[TEST_HOOKS_GLOBAL] = hooks;
  return hooks;
}
