/**
 * One ordered, bounded, run-once teardown. Each step gets its own time limit so a hung step
 * (a delivery that never answers, a stuck socket) cannot keep Herald from exiting, and a
 * failing step never stops the ones after it: the database must be closed whatever happened
 * before.
 */

/** One step of the teardown. */
export interface ShutdownStep {
  /** Short name for logs and the report. */
  name: string;
  /** The work; may be synchronous. */
  run: () => Promise<void> | void;
  /** After this long the step is abandoned and the next one starts. */
  timeoutMs: number;
}

/** What happened to one step. */
export interface ShutdownStepResult {
  name: string;
  outcome: 'done' | 'failed' | 'timed-out';
  error?: string;
}

/** Minimal logger the teardown reports through. */
export interface ShutdownLogger {
  info(msg: string): void;
  warn(msg: string): void;
}

/** The run-once handle returned by {@link createShutdown}. */
export interface Shutdown {
  /** Runs every step in order; later calls return the first call's promise. */
  run(): Promise<ShutdownStepResult[]>;
  /** True once run() has been called (used to let `before-quit` through the second time). */
  readonly started: boolean;
}

const TIMED_OUT = Symbol('timed-out');

async function runStep(step: ShutdownStep): Promise<ShutdownStepResult> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), step.timeoutMs);
  });
  try {
    // Promise.resolve().then() turns a synchronous throw into a rejection we can race.
    const work = Promise.resolve().then(() => step.run());
    const winner = await Promise.race([work, limit]);
    if (winner === TIMED_OUT) {
      // The abandoned step may still reject later; nobody is listening any more.
      work.catch(() => undefined);
      return { name: step.name, outcome: 'timed-out', error: `gave up after ${step.timeoutMs} ms` };
    }
    return { name: step.name, outcome: 'done' };
  } catch (err) {
    return {
      name: step.name,
      outcome: 'failed',
      error: err instanceof Error ? err.message : String(err),
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * createShutdown() returns a teardown that runs `steps` one after another, each capped by its
 * timeout, exactly once however many times quit is requested.
 *
 * @param steps - the steps, or a function giving them, read when the teardown starts (so
 *   steps for things created after the shutdown object, like the server, are included)
 */
export function createShutdown(
  steps: ShutdownStep[] | (() => ShutdownStep[]),
  log?: ShutdownLogger,
): Shutdown {
  let running: Promise<ShutdownStepResult[]> | undefined;
  const execute = async (): Promise<ShutdownStepResult[]> => {
    const list = typeof steps === 'function' ? steps() : steps;
    const results: ShutdownStepResult[] = [];
    for (const step of list) {
      const result = await runStep(step);
      results.push(result);
      if (result.outcome === 'done') log?.info(`shutdown: ${step.name} done`);
      else log?.warn(`shutdown: ${step.name} ${result.outcome}: ${result.error}`);
    }
    return results;
  };
  return {
    run() {
      running ??= execute();
      return running;
    },
    get started() {
      return running !== undefined;
    },
  };
}
