import type { consoleRoutes } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.import;

/** Imports from other tools: Message Nest's database file. */
export const importApi = {
  /**
   * Uploads Message Nest's SQLite file. The one console call whose body is not JSON: the route
   * takes the file's raw bytes and answers the usual envelope.
   */
  messageNest: (file: Blob, options: { dryRun: boolean; withLogs: boolean; timeZone?: string }) =>
    call<Routes['messageNest']>('POST', '/import/message-nest', {
      query: {
        dryRun: options.dryRun ? '1' : undefined,
        withLogs: options.withLogs ? '1' : undefined,
        timeZone: options.timeZone || undefined,
      },
      raw: { data: file, contentType: 'application/octet-stream' },
    }),
};
