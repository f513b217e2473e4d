import { WORKER_VARIABLES } from '../server/lib/worker-file';

/**
 * The environment variables a packaged desktop app must not obey, and their removal from the
 * process before the server is loaded (its modules read some of them once, at load; its worker
 * threads inherit the process's environment).
 *
 * - Developers' variables: `HERALD_*_WORKER_FILE` names a JavaScript file the server starts as a
 *   worker thread, which would load any code into the packaged app and undo its runAsNode and
 *   NODE_OPTIONS fuses; `HERALD_TEST_*` shortens leases, crashes the process on purpose and the
 *   like. Neither means anything to a user.
 * - Where the data is: `HERALD_DATABASE_URL` and `HERALD_SECRET_KEY` (and their `_FILE` twins)
 *   set for a headless Herald, or left in a shell profile, would silently move the desktop app's
 *   database or change its key. They apply only when config.json's `databaseFromEnvironment` is
 *   true, a choice the user made for this app.
 *
 * A development run (`npm start` from the repository) obeys them all.
 */

/** The variables that say where the data is and which key seals it. */
export const DATABASE_AND_KEY_VARIABLES = [
  'HERALD_DATABASE_URL',
  'HERALD_DATABASE_URL_FILE',
  'HERALD_SECRET_KEY',
  'HERALD_SECRET_KEY_FILE',
] as const;

/** The variables meant for Herald's developers and its test suite only. */
export function isDeveloperVariable(name: string): boolean {
  return (
    name.startsWith('HERALD_TEST_') || (Object.values(WORKER_VARIABLES) as string[]).includes(name)
  );
}

/** What the packaged app left out of its environment, by reason. */
export interface IgnoredVariables {
  developer: string[];
  databaseAndKey: string[];
}

/**
 * ignoredVariables() names the variables set in `env` that this run must not obey: none in a
 * development run; in the packaged app the developers' ones, and the database and key ones
 * unless `databaseFromEnvironment` opts in. Set but empty counts as set: an empty
 * HERALD_DATABASE_URL means SQLite to the server, so it goes too.
 */
export function ignoredVariables(
  env: Record<string, string | undefined>,
  options: { isPackaged: boolean; databaseFromEnvironment: boolean },
): IgnoredVariables {
  if (!options.isPackaged) return { developer: [], databaseAndKey: [] };
  const set = Object.keys(env).filter((name) => env[name] !== undefined);
  return {
    developer: set.filter(isDeveloperVariable).sort(),
    databaseAndKey: options.databaseFromEnvironment
      ? []
      : DATABASE_AND_KEY_VARIABLES.filter((name) => set.includes(name)),
  };
}

/** removeIgnored() deletes the ignored variables from `env` (the process's own, in the app). */
export function removeIgnored(
  env: Record<string, string | undefined>,
  ignored: IgnoredVariables,
): void {
  for (const name of [...ignored.developer, ...ignored.databaseAndKey]) delete env[name];
}
