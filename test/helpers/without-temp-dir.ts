/**
 * Runs `fn` with the system's temp folder (TMPDIR, which os.tmpdir() reads on each call) at
 * `missing`, a path that does not exist: as where that folder cannot take a file (a read-only
 * root, a full tmpfs). The variable is restored after.
 */
export async function withoutTempDir<T>(missing: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env.TMPDIR;
  process.env.TMPDIR = missing;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
}
