import { defineStore } from 'pinia';

import { importApi } from '../api/import-api';

/** Bringing a setup over from another tool: Message Nest's database file. */
export const useImportStore = defineStore('import', () => {
  /** Imports (or, with dryRun, previews importing) a Message Nest SQLite file. */
  const messageNest = (
    file: Blob,
    options: { dryRun: boolean; withLogs: boolean; timeZone?: string },
  ) => importApi.messageNest(file, options);

  return { messageNest };
});
