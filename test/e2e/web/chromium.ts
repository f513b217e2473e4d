import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium, type Browser } from 'playwright-core';

import { e2eRequired } from '../required';

/**
 * What every Chromium suite shares: Debian's Chromium (Playwright's own browser download cannot
 * work offline), whether the suite runs or skips, the built console it serves, and the launch
 * flags a root, GPU-less, offline machine needs.
 */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const RENDERER_DIST = join(ROOT, 'renderer/dist');
export const CHROMIUM = '/usr/bin/chromium';

/**
 * chromiumAvailable() answers whether `suite` can run; where HERALD_E2E_REQUIRED asks for the
 * Chromium suites it throws instead of skipping, and a skip says why.
 */
export function chromiumAvailable(suite: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (e2eRequired('chromium')) {
    throw new Error(
      `HERALD_E2E_REQUIRED requires the Chromium suite but ${CHROMIUM} is missing (apt-get install -y chromium)`,
    );
  }
  console.warn(`${suite} skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);
  return false;
}

/** ensureConsoleBuilt() builds renderer/dist once when a fresh checkout has none. */
export function ensureConsoleBuilt(): void {
  if (existsSync(join(RENDERER_DIST, 'index.html'))) return;
  execFileSync(
    'npx',
    ['vite', 'build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}

/** launchChromium() starts headless Chromium; without these flags it hangs on the closed network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
