import { createRequire } from 'node:module';

import type BetterSqlite3 from 'better-sqlite3';

/**
 * better-sqlite3, loaded on first use rather than imported: its binary is built for one runtime
 * (Node's or Electron's ABI) and can fail to load on a user's machine (a build for a newer glibc,
 * a file an antivirus quarantined, a package left out). Herald then runs on node-sqlite3
 * (db/database.ts), so nothing that merely imports a module of Herald's may load it. The package
 * is resolved from this module's own place, as an import would be (beside the bundle once built).
 */
const nodeRequire = createRequire(import.meta.url);

let loaded: { driver: typeof BetterSqlite3 } | { error: unknown } | undefined;

/** betterSqlite3() is better-sqlite3's Database class; it throws why it cannot be loaded. */
export function betterSqlite3(): typeof BetterSqlite3 {
  if (loaded === undefined) {
    try {
      loaded = { driver: nodeRequire('better-sqlite3') as typeof BetterSqlite3 };
    } catch (error) {
      loaded = { error };
    }
  }
  if ('error' in loaded) throw loaded.error;
  return loaded.driver;
}
