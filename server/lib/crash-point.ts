import { writeSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/**
 * TEST ONLY: lets the crash suite (test/integration/crash) kill Herald at a named point of the
 * write and delivery paths, so "what survives a crash right here" is tested at that point and
 * not wherever an outside kill happens to land.
 *
 * Inert unless HERALD_TEST_CRASH_AT is set (`<point>` or `<point>:<n>`, n defaults to 1): the
 * n-th time the process reaches that point, it SIGKILLs itself — no cleanup, no flush, like a
 * power cut. Production never sets the variable, and then crashPoint() only compares a string.
 */
export const CRASH_POINTS = [
  /** A write cycle has inserted the sends it accepts and their deliveries; COMMIT has not run. */
  'before-commit',
  /** A cycle of accepted sends committed; none of them has been answered. */
  'after-commit',
  /** Inside a cycle accepting sends: the send rows are written, their deliveries not yet. */
  'during-cycle',
  /** A channel answered an attempt; its outcome is not recorded yet. */
  'during-delivery',
  /** A digest's window is claimed and its send and deliveries inserted; COMMIT has not run. */
  'digest-before-commit',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

function parse(value: string | undefined): { point: CrashPoint; at: number } | null {
  if (!value) return null;
  const [point, n = '1'] = value.split(':');
  const at = Number(n);
  if (!CRASH_POINTS.includes(point as CrashPoint) || !Number.isInteger(at) || at < 1) {
    // A typo would make the crash test wait for a crash that never comes: refuse it at start.
    throw new Error(
      `HERALD_TEST_CRASH_AT must be one of ${CRASH_POINTS.join(', ')}, optionally with ":<n>" (n ≥ 1), not "${value}"`,
    );
  }
  return { point: point as CrashPoint, at };
}

const armed = parse(process.env.HERALD_TEST_CRASH_AT);
let reached = 0;

export function crashPoint(point: CrashPoint): void {
  if (armed?.point !== point || ++reached < armed.at) return;
  // Written straight to the descriptor, so it is out before the kill, from a worker thread
  // (whose process.stderr goes through the main thread) as from the main one.
  const where = isMainThread ? '' : ' in the write worker';
  writeSync(2, `herald: test crash at ${point} (#${reached})${where}\n`);
  process.kill(process.pid, 'SIGKILL');
}
