// Runs every Vitest project, then the HTTP suite (test/integration) again on PostgreSQL, then
// prints the totals of both as one closing line (scripts/test-summary.mjs).
// Exit code: non-zero if Vitest failed or any test failed.
//
// The PostgreSQL pass runs each test Herald on a fresh database of the server at
// HERALD_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test, trust auth). Where
// no PostgreSQL answers there, it is skipped and says so, unless HERALD_POSTGRES_REQUIRED=1
// (CI), which makes that a failure.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

if (process.env.HERALD_TEST_SHUFFLE === '1') {
  process.env.HERALD_TEST_SEED ??= String(Date.now() % 1_000_000);
  console.log(
    `Tests run shuffled; replay this order with HERALD_TEST_SEED=${process.env.HERALD_TEST_SEED}`,
  );
}
const reports = {
  sqlite: 'test-results/vitest.json',
  postgres: 'test-results/vitest-postgres.json',
};
rmSync(reports.sqlite, { force: true });
rmSync(reports.postgres, { force: true });

const vitest = (report, args, env = {}) =>
  spawnSync(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...args,
    ],
    { stdio: 'inherit', env: { ...process.env, ...env } },
  );

const extra = process.argv.slice(2);
const first = vitest(reports.sqlite, extra);

let second = { status: 0 };
const summaries = [reports.sqlite];
// Only the whole suite gets the second pass: `npm test -- some/file.test.ts` runs that file.
if (extra.length === 0 && process.env.HERALD_TEST_DATABASE !== 'postgres') {
  const url = process.env.HERALD_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const probe = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "import pg from 'pg'; const c = new pg.Client({ connectionString: process.argv[1], connectionTimeoutMillis: 5000 }); await c.connect(); await c.end();",
      url,
    ],
    { stdio: 'pipe' },
  );
  if (probe.status === 0) {
    console.log(`\nThe HTTP suite again, on PostgreSQL (${url.replace(/\/\/[^@/]*@/, '//…@')}):`);
    second = vitest(reports.postgres, ['--project', 'server', 'test/integration'], {
      HERALD_TEST_DATABASE: 'postgres',
    });
    summaries.push(reports.postgres);
  } else if (process.env.HERALD_POSTGRES_REQUIRED === '1') {
    console.error(
      `PostgreSQL is required (HERALD_POSTGRES_REQUIRED=1) and ${url} does not answer.`,
    );
    second = { status: 1 };
  } else {
    console.log(
      `\nSkipped: the HTTP suite on PostgreSQL (nothing answers at ${url}; set HERALD_TEST_POSTGRES_URL, or HERALD_POSTGRES_REQUIRED=1 to make this a failure).`,
    );
  }
}
const summary = spawnSync(process.execPath, ['scripts/test-summary.mjs', ...summaries], {
  stdio: 'inherit',
});
process.exit(first.status || second.status || summary.status || 0);
