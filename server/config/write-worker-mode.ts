/**
 * HERALD_WRITE_WORKER:
 * - `auto` (the default): `on` where the machine has at least AUTO_MIN_CPUS (db/write-worker/remote-cycles.ts) logical CPUs,
 *   else `off`. The worker halves the main thread's CPU per accepted send but adds about a
 *   tenth to the total (a second connection, the hand-over between threads), so it pays only
 *   where a core is free for it: on two cores the HTTP clients, often on the same machine
 *   (local scripts), need the second one (README, "Performance").
 * - `on`: started with the first burst of writes, stopped after WORKER_IDLE_MS idle.
 * - `always`: started with Herald and kept.
 * - `off`: every write on the main thread.
 */
export type WriteWorkerMode = 'auto' | 'on' | 'always' | 'off';

/** HERALD_WRITE_WORKER's value (undefined or blank: auto). */
export function writeWorkerMode(value: string | undefined): WriteWorkerMode {
  if (value === undefined || value === '') return 'auto';
  if (value === 'auto' || value === 'on' || value === 'always' || value === 'off') return value;
  throw new Error(`HERALD_WRITE_WORKER must be auto, on, always or off, not "${value}"`);
}
