/**
 * Herald for the budget row (budget-row.ts): the production server, bundled as out/server is
 * (scripts/build-server.mjs `buildPausedHerald`), started with its deliveries paused, as the
 * desktop tray's switch pauses them. SIGUSR2 resumes them, and the next pauses them again. So
 * the sends of a load are accepted with nothing else running, and their deliveries are made
 * afterwards with nothing else running: the CPU of each part alone, and how fast the delivery
 * path goes by itself.
 *
 *   node out/bench/paused-herald.js --port N --data-dir DIR
 *
 * Prints "Herald is running at URL" once it listens. Never shipped: the bench builds it.
 */
import { parseArgs } from 'node:util';

import { startServer } from '../../server/index';

// Not server/cli.ts's parser: bundled into this one file, that module would take this file for
// its own entry and start a second Herald.
const { values } = parseArgs({
  options: { port: { type: 'string' }, 'data-dir': { type: 'string' } },
});
if (!values.port || !values['data-dir']) throw new Error('--port N and --data-dir DIR are needed');

const server = await startServer({ port: Number(values.port), dataDir: values['data-dir'] });
server.deliveries.pause();
process.on('SIGUSR2', () => {
  if (server.deliveries.paused) server.deliveries.resume();
  else server.deliveries.pause();
});
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
console.log(`Herald is running at ${server.url} (deliveries paused: SIGUSR2 resumes them)`);
