import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import express, { Router, type NextFunction, type Request, type Response } from 'express';

import { CONSOLE_BASE, consoleRoutes } from '../../../../contract';
import { stagingFolder } from '../../../data-dir/staging';
import { AppError } from '../../../lib/errors';
import { importMessageNest } from '../../../features/import/message-nest/importer';
import { openSqliteSource } from '../../../features/import/message-nest/sqlite-source';
import { importTimeZone } from '../../../features/import/message-nest/time-zone';
import type { HeraldParts } from '../../../parts';
import { expressPath } from '../../contract-route';
import { consoleRoutesOn } from '../console-route';

const route = consoleRoutes.import.messageNest;

/** The one console route whose body is not JSON: the uploaded Message Nest database. */
export const IMPORT_UPLOAD_PATH = expressPath(route, CONSOLE_BASE);

/** Message Nest keeps up to 50,000 hosted messages by default; its file stays well below this. */
export const IMPORT_UPLOAD_LIMIT_BYTES = 256 * 1024 * 1024;

const SQLITE_MAGIC = Buffer.from('SQLite format 3\u0000', 'latin1');

/** An upload is staged in the data folder while it is imported (data-dir/staging.ts). */
export const UPLOAD_SCRATCH_PREFIX = '.import-upload-';

const tooLarge = () =>
  new AppError(
    413,
    `the file is larger than ${IMPORT_UPLOAD_LIMIT_BYTES / 1024 / 1024} MiB: import it from the command line instead (npm run import:message-nest -- <file>)`,
  );

const rawBody = express.raw({
  type: 'application/octet-stream',
  limit: IMPORT_UPLOAD_LIMIT_BYTES,
});

/** Reads the upload, refusing an oversized one with a msg that says what to do instead. */
function readUpload(req: Request, res: Response, next: NextFunction) {
  if (Number(req.headers['content-length'] ?? 0) > IMPORT_UPLOAD_LIMIT_BYTES) throw tooLarge();
  rawBody(req, res, (err?: unknown) => {
    if ((err as { type?: string } | undefined)?.type === 'entity.too.large')
      return next(tooLarge());
    next(err);
  });
}

/**
 * POST /api/console/import/message-nest[?dryRun=1][&withLogs=1][&timeZone=Zone]: the body is Message Nest's
 * SQLite file (application/octet-stream). Answers the import report.
 */
/** What the console import writes with: the same parts the command-line importer is given. */
export type ImportRouterDeps = Pick<
  HeraldParts,
  'registry' | 'writeLock' | 'clock' | 'channels' | 'schedules' | 'settings' | 'dataDir'
>;

export function createImportRouter(deps: ImportRouterDeps): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(
    route,
    async ({ query }, req) => {
      // An unknown zone is refused before the upload is staged (ImportInputError: a 400).
      const timeZone = importTimeZone(query.timeZone);
      const body: unknown = req.body;
      if (!Buffer.isBuffer(body) || body.length === 0) {
        throw new AppError(
          400,
          "send Message Nest's database file (conf/database.db) as the request body, with Content-Type: application/octet-stream",
        );
      }
      if (!body.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) {
        throw new AppError(
          400,
          "the uploaded file is not a SQLite database: choose Message Nest's conf/database.db (for a MySQL or PostgreSQL Message Nest, use the command line importer)",
        );
      }
      const scratch = stagingFolder(deps.dataDir, UPLOAD_SCRATCH_PREFIX);
      try {
        const file = join(scratch, 'message-nest.db');
        writeFileSync(file, body, { mode: 0o600 });
        const source = await openSqliteSource(file);
        let report;
        try {
          report = await importMessageNest(
            source,
            {
              writeLock: deps.writeLock,
              registry: deps.registry,
              channels: deps.channels,
              schedules: deps.schedules,
              settings: deps.settings,
              now: () => new Date(deps.clock.now()),
            },
            { dryRun: query.dryRun, withLogs: query.withLogs, timeZone },
          );
        } finally {
          await source.close();
        }
        return { ...report, source: 'the uploaded file' };
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
    { before: [readUpload] },
  );
  return router;
}
