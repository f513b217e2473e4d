import { accessSync, constants, statSync } from 'node:fs';

/**
 * The folders SQLite's unix VFS tries for its temporary files (statement journals, sorts,
 * materialized subqueries), in its order (os_unix.c, unixTempFileDir): SQLITE_TMPDIR, TMPDIR,
 * /var/tmp, /usr/tmp, /tmp, then the working folder.
 */
export function sqliteTempDirCandidates(env: NodeJS.ProcessEnv, cwd: string): string[] {
  return [env.SQLITE_TMPDIR, env.TMPDIR, '/var/tmp', '/usr/tmp', '/tmp', cwd].filter(
    (dir): dir is string => dir !== undefined && dir !== '',
  );
}

/** As SQLite checks a candidate: a folder it may write in and enter. */
export function usableTempDir(dir: string): boolean {
  try {
    if (!statSync(dir).isDirectory()) return false;
    accessSync(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why SQLite will fail some writes here, or null when it has a folder for its temporary files.
 * Without one (a container run with --read-only and no tmpfs) the failures come later and read
 * like bugs ("no such savepoint"), so Herald says so at start.
 */
export function sqliteTempDirProblem(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
  usable: (dir: string) => boolean = usableTempDir,
  platform: NodeJS.Platform = process.platform,
): string | null {
  // Windows' VFS looks elsewhere (its temp path), always writable for the user.
  if (platform === 'win32') return null;
  const tried = sqliteTempDirCandidates(env, cwd);
  if (tried.some((dir) => usable(dir))) return null;
  return (
    `SQLite has no folder it can write its temporary files to (tried ${tried.join(', ')}), so ` +
    'some writes will fail: give it one, a tmpfs at /tmp (docker run --tmpfs /tmp; tmpfs: [/tmp] ' +
    'in Compose) or SQLITE_TMPDIR naming a writable folder'
  );
}
