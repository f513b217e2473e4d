/**
 * `npm run backup`, `restore`, `admin`, `rotate-key`, `import:message-nest` and
 * `migrate:to-postgres`: the `herald`
 * command (server/bin.ts) run from the production bundle, built first when it is missing or
 * older than its sources, as `npm start` does (scripts/start.mjs). Plain JavaScript, so that no
 * TypeScript loader is needed where Herald is installed without its dev tools.
 */
import { pathToFileURL } from 'node:url';

import { cliFile, ensureServerBuilt } from './build-server.mjs';

try {
  // On stderr: a tool's own output (a report, a file name) stays alone on stdout.
  if (await ensureServerBuilt()) console.error('Built the server bundle (out/server).');
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
// The bundle reads its command and options from process.argv, as the `herald` bin does.
await import(pathToFileURL(cliFile).href);
