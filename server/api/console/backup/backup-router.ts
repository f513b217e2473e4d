import { createReadStream } from 'node:fs';

import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import { recordBackup } from '../../../features/audit/audit-actions';
import type { AuditLog } from '../../../features/audit/audit-log';
import type { BackupService } from '../../../features/backup/backup-service';
import { actorOf } from '../audit/audit-recorder';
import { consoleRoutesOn } from '../console-route';

const routes = consoleRoutes.backup;

/**
 * Settings → Backup: a backup made now, answered as a file to download (not the envelope), and
 * the scheduled backups' setting. A refusal (PostgreSQL) is the envelope as usual: it comes
 * before the first byte of the file.
 */
export interface BackupRouterDeps {
  backups: BackupService;
  /** A download is a backup made: recorded with who asked for it. */
  audit: AuditLog;
}

export function createBackupRouter({ backups, audit }: BackupRouterDeps): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.download, async ({ query }, req, res) => {
    const download = await backups.download({
      withoutKey: query.withoutKey,
      user: req.user?.username,
    });
    try {
      await recordBackup(audit, 'backup.create', download.name, actorOf(req));
    } catch (err) {
      download.remove();
      throw err;
    }
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
