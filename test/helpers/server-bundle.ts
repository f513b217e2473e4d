/**
 * The production bundle (out/server) for the test files that run it: built once, under a lock
 * (build-lock.ts), and only when stale (scripts/build-server.mjs serverBuildIsStale).
 */
import { ensureServerBuilt } from '../../scripts/build-server.mjs';
import { withBuildLock } from './build-lock';

/** Builds out/server unless it is up to date, one test process at a time. */
export async function ensureServerBundle(): Promise<void> {
  await withBuildLock('server', ensureServerBuilt);
}
