import type { BodyOf, consoleRoutes } from '@contract';

import { API_BASE, apiUrl, call } from './http-client';

type Routes = typeof consoleRoutes.backup;

/** Settings → Backup: the scheduled backups' setting. */
export const backupApi = {
  schedule: () => call<Routes['schedule']>('GET', '/backup/schedule'),
  updateSchedule: (body: BodyOf<Routes['updateSchedule']>) =>
    call<Routes['updateSchedule']>('PUT', '/backup/schedule', { body }),
};

/**
 * The download is a link the browser follows (GET /api/console/backup), not a fetch: the
 * browser saves the file as it streams in, sending the session cookie as for any page.
 */
export function backupDownloadUrl(withoutKey: boolean): string {
  return apiUrl('/backup', { withoutKey: withoutKey ? '1' : undefined }, API_BASE);
}
