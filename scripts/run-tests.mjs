// Runs every Vitest project, then prints the totals as one closing line (scripts/test-summary.mjs).
// Exit code: non-zero if Vitest failed or any test failed.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const report = 'test-results/vitest.json';
rmSync(report, { force: true });
const vitest = spawnSync(
  process.execPath,
  ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
const summary = spawnSync(process.execPath, ['scripts/test-summary.mjs', report], { stdio: 'inherit' });
process.exit(vitest.status || summary.status || 0);
