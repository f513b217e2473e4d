/**
 * Vitest global setup of the `server` project: builds the production bundle (out/server) when a
 * source is newer than it, once per run and under the lock its own tests take, so every Herald a
 * test spawns runs this run's code (herald-bin.ts).
 *
 * Nothing else is set up: a Herald a test opens in its own process runs from the sources as a
 * developer's does, and starts the same worker threads (server/lib/worker-file.ts), in the same
 * modes (HERALD_WRITE_WORKER is `auto`, as for a user, unless a test sets it).
 */
import { ensureServerBundle } from './server-bundle';

export default async function setup(): Promise<void> {
  await ensureServerBundle();
}
