import { createReadStream } from 'node:fs';

import { Router } from 'express';

import { CONSOLE_BASE, consoleRoutes } from '../../../../contract';
import type { BackupService } from '../../../features/backup/backup-service';
import { contractRoutes } from '../../contract-route';

const routes = consoleRoutes.backup;

/**
 * Settings → Backup: a backup made now, answered as a file to download (not the envelope), and
 * the scheduled backups' setting. A refusal (PostgreSQL) is the envelope as usual: it comes
 * before the first byte of the file.
 */
export function createBackupRouter(backups: BackupService): Router {
  const router = Router();
  const serve = contractRoutes(router, CONSOLE_BASE);
  serve(routes.download, async ({ query }, req, res) => {
    const download = await backups.download({
      withoutKey: query.withoutKey,
      user: req.user?.username,
    });
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Content-Length', String(download.made.bytes));
    res.setHeader('Content-Disposition', `attachment; filename="${download.name}"`);
    // It holds every sealed secret (and the key): no cache may keep a copy.
    res.setHeader('Cache-Control', 'no-store');
    const stream = createReadStream(download.file);
    // The scratch copy goes once the answer is sent or the client went away.
    res.once('close', () => {
      stream.destroy();
      download.remove();
    });
    stream.once('error', () => res.destroy());
    stream.pipe(res);
  });
  serve(routes.schedule, () => backups.schedule());
  serve(routes.updateSchedule, ({ body }) => backups.updateSchedule(body));
  return router;
}
