import { createLogger } from './lib/logger';
import { errorMessage } from './lib/errors';

const log = createLogger('jobs');

/** Housekeeping declared as data, with paired start and stop (style.md rule 6). */
export interface Job {
  name: string;
  everyMs: number;
  run(): Promise<unknown>;
}

export function startJobs(jobs: Job[]): () => void {
  const timers = jobs.map((job) => {
    const timer = setInterval(() => {
      job.run().catch((err) => log.warn(`${job.name} failed: ${errorMessage(err)}`));
    }, job.everyMs);
    timer.unref();
    return timer;
  });
  return () => timers.forEach((t) => clearInterval(t));
}
