import { transact } from '../../../db/caller-tx';
import type { RowProgress } from '../../../lib/progress';
import { importChannels } from './channels';
import { importCronMessages } from './cron-messages';
import { importHostedMessages } from './hosted-messages';
import { ImportRun, type ImportDeps } from './import-run';
import { importInstances } from './instances';
import { emptyCounts, type ImportReport } from './report';
import { answerLikeMessageNest } from './send-api-answers';
import { importSendLogs } from './send-logs';
import { readMessageNest, type Snapshot } from './snapshot';
import type { SourceReader } from './source';
import { importTasks, importTemplates } from './tasks-and-templates';
import type { ImportTimeZone } from './time-zone';

export type { ImportDeps } from './import-run';

export interface ImportOptions {
  dryRun: boolean;
  withLogs: boolean;
  /** Rows done of each table's total, as the steps go (the command line prints it). */
  progress?: RowProgress;
  /** The zone Message Nest ran in (importTimeZone); its default when not given. */
  timeZone?: ImportTimeZone;
}

/** Thrown inside the transaction of a dry run, so that everything it did is rolled back. */
class DryRunRollback extends Error {}

/**
 * Imports a Message Nest database into Herald in one transaction: everything or nothing. The
 * source is only read. Rows imported before (import_map) are counted, not created again.
 */
export async function importMessageNest(
  source: SourceReader,
  deps: ImportDeps,
  options: ImportOptions,
): Promise<ImportReport> {
  return importSnapshot(await readMessageNest(source, options.withLogs), deps, options);
}

/**
 * The writing half of importMessageNest, for callers that read the source first. The services
 * it writes through join its transaction, and what they announce (the settings to other
 * processes, new schedules to the scheduler) follows its commit: never for a dry run.
 */
export async function importSnapshot(
  snapshot: Snapshot,
  deps: ImportDeps,
  options: ImportOptions,
): Promise<ImportReport> {
  const report: ImportReport = {
    source: snapshot.description,
    dryRun: options.dryRun,
    tablePrefix: snapshot.schema.prefix,
    counts: emptyCounts(),
    skipped: [],
    scheduleZones: [],
    notes: [],
  };
  try {
    await transact(deps.writeLock, async (tx) => {
      await importAll(
        new ImportRun(deps, snapshot, report, tx, options.progress, options.timeZone),
        options,
      );
      options.progress?.done();
      if (options.dryRun) throw new DryRunRollback();
    });
  } catch (err) {
    if (!(err instanceof DryRunRollback)) throw err;
  }
  return report;
}

/** The steps in the order their rows refer to each other: an instance to its task and channel. */
async function importAll(run: ImportRun, options: ImportOptions) {
  await run.loadMap();
  await importChannels(run);
  await importTasks(run);
  await importTemplates(run);
  await importInstances(run);
  await importCronMessages(run);
  await importHostedMessages(run);
  if (options.withLogs) await importSendLogs(run);
  else if (run.snapshot.schema.tables.send_tasks_logs) {
    run.note('Send logs were not imported: run the import with --with-logs to bring them over.');
  }
  run.note(
    'Message Nest’s admin account is not imported: sign in to Herald with Herald’s own administrator.',
  );
  await answerLikeMessageNest(run, options.dryRun);
}
