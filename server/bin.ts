/**
 * Entry of the production bundle out/server/cli.js (scripts/build-server.mjs): Herald headless,
 * for `node out/server/cli.js [--port N] [--data-dir DIR] [--host ADDR]` and the `herald` bin.
 * server/cli.ts stays the module (and the entry under tsx); this file only runs it.
 */
import { runHeadless } from './cli';

runHeadless(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
