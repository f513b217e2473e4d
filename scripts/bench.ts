/**
 * `npm run bench`: the figures of issue 8's table, each a median of rounds beside its ceiling
 * measured in the same run, on loopback. Herald runs as production does (the compiled bundle
 * out/server/cli.js, NODE_ENV=production) in its own process; the bare Express ceiling and
 * the webhook peer run in their own processes too, so the load generator (autocannon, here)
 * shares no event loop with what it measures. Machines here are shared and noisy: the figures
 * are medians and ratios, never pass/fail.
 *
 *   npm run bench [-- --rounds 3 --seconds 5 --sends 3000 --starts 3 --profile --quick]
 *                 [-- --only v2,v1,two,deliver,floor,worker,reader,start]   (some rows)
 *
 * Writes bench/results/latest.json (--quick: bench/results/quick.json; --out FILE).
 * --profile runs Herald under `node --cpu-prof` and prints where the profile went.
 * --history and --postgres run other benchmarks (scripts/bench-history.ts, bench-postgres.ts).
 *
 * Each row is a function of its own in scripts/bench/ (accept-rows, deliver-row, floor-row and
 * the budget row that follows it, worker-row, reader-row, start-row), measured against the
 * processes scripts/bench/rig.ts starts. The reader row loads the console in Chromium: the
 * console is built first (renderer/dist, as `npm run build:renderer`), so it measures the
 * sources as they are.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import { appRoot } from '../server/lib/app-root';
import { ensureServerBuilt } from './build-server.mjs';
import { v1Row, v2Row, twoRow } from './bench/accept-rows';
import { deliverRow } from './bench/deliver-row';
import { budgetRow } from './bench/budget-row';
import { floorRow } from './bench/floor-row';
import { readOptions } from './bench/options';
import { readerRow } from './bench/reader-row';
import { writeReport } from './bench/report';
import { startRig } from './bench/rig';
import { startRow } from './bench/start-row';
import { workerRow } from './bench/worker-row';

const root = appRoot(import.meta.url);

const history = process.argv.includes('--history') ? await import('./bench-history') : null;
if (history) await history.finished.then(() => process.exit(0));
const postgres = process.argv.includes('--postgres') ? await import('./bench-postgres') : null;
if (postgres) await postgres.finished.then(() => process.exit(0));
const options = readOptions(root);

async function main() {
  if (await ensureServerBuilt()) console.log('built out/server (the production server bundle)');
  if (options.runs('reader')) {
    console.log('building the console (renderer/dist) for the reader row…');
    execFileSync(
      process.execPath,
      [
        path.join(root, 'node_modules/vite/bin/vite.js'),
        'build',
        '--config',
        'renderer/vite.config.ts',
        '--logLevel',
        'warn',
      ],
      { cwd: root, stdio: 'inherit' },
    );
  }
  const rig = await startRig(root, options);
  try {
    if (options.runs('v2')) await v2Row(rig);
    if (options.runs('v1')) await v1Row(rig);
    if (options.runs('two')) await twoRow(rig);
    if (options.runs('deliver')) await deliverRow(rig);
    if (options.runs('floor')) await budgetRow(rig, await floorRow(rig));
    if (options.runs('worker')) await workerRow(rig);
    if (options.runs('reader')) await readerRow(rig);
    await rig.stopHerald();
    if (options.runs('start')) await startRow(rig);
  } finally {
    await rig.stop();
  }
  writeReport(options, rig.rows);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
