/**
 * Which end-to-end suites must run rather than skip: `HERALD_E2E_REQUIRED` is a comma list of
 * suite names (`chromium`, `electron`), or `1` / `all` for every suite. CI requires Chromium
 * everywhere and Electron where its binary is installed (see .ci/run).
 */
export type E2eSuite = 'chromium' | 'electron';

export function e2eRequired(suite: E2eSuite, env = process.env.HERALD_E2E_REQUIRED): boolean {
  if (!env) return false;
  const names = env.split(',').map((s) => s.trim().toLowerCase());
  return names.includes('1') || names.includes('all') || names.includes(suite);
}
