// Runs every Vitest project, then prints the totals as one closing line (scripts/test-summary.mjs).
// Exit code: non-zero if Vitest failed or any test failed.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

if (process.env.HERALD_TEST_SHUFFLE === '1') {
  process.env.HERALD_TEST_SEED ??= String(Date.now() % 1_000_000);
  console.log(
    `Tests run shuffled; replay this order with HERALD_TEST_SEED=${process.env.HERALD_TEST_SEED}`,
  );
}
const report = 'test-results/vitest.json';
rmSync(report, { force: true });
const vitest = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
const summary = spawnSync(process.execPath, ['scripts/test-summary.mjs', report], {
  stdio: 'inherit',
});
process.exit(vitest.status || summary.status || 0);
