// `npm test`: the console build, then the server and renderer projects, then the folders of
// test/integration where the database's dialect matters again on PostgreSQL
// (scripts/test-plan.mjs INTEGRATION_FOLDERS). Beside them run the browser suites (the e2e
// project, a Vitest of its own whose output is shown when it ends) and the static checks
// (typecheck, ESLint, Prettier, dependency-cruiser; scripts/test-plan.mjs). Closes with each
// part's wall time and one line of totals (scripts/test-summary.mjs).
//
// Why the browser suites run beside rather than among the others: they run one file at a time,
// so Vitest left them for last and the machine sat half idle for a minute while they ran alone,
// and the PostgreSQL pass waited behind them.
//
// `npm test -- <files or filters>` runs just those, with no static checks and no second pass.
//
// The PostgreSQL pass runs each test Herald on a fresh database of the server at
// HERALD_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test, trust auth). Where
// no PostgreSQL answers there, it is skipped and says so, unless HERALD_POSTGRES_REQUIRED=1
// (CI), which makes that a failure.
//
// Exit code: non-zero if a static check, Vitest or any test failed.
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';

import { postgresPassFolders, STATIC_CHECKS } from './test-plan.mjs';

if (process.env.HERALD_TEST_SHUFFLE === '1') {
  process.env.HERALD_TEST_SEED ??= String(Date.now() % 1_000_000);
  console.log(
    `Tests run shuffled; replay this order with HERALD_TEST_SEED=${process.env.HERALD_TEST_SEED}`,
  );
}
const reports = {
  sqlite: 'test-results/vitest.json',
  e2e: 'test-results/vitest-e2e.json',
  postgres: 'test-results/vitest-postgres.json',
  timings: 'test-results/timings.json',
};
for (const file of Object.values(reports)) rmSync(file, { force: true });

/** Runs a command, its output passed through or kept; resolves its status and wall time. */
function run(command, args, options = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: options.capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: { ...process.env, ...options.env },
    });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.once('close', (code, signal) =>
      resolve({ status: code ?? (signal ? 1 : 0), output, ms: Date.now() - started }),
    );
  });
}

const vitest = (report, args, env = {}, capture = false) =>
  run(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...args,
    ],
    { env, capture },
  );

const extra = process.argv.slice(2);
const whole = extra.length === 0 && process.env.HERALD_TEST_DATABASE !== 'postgres';
const timings = { parts: [] };
const started = Date.now();

let checks = Promise.resolve([]);
let browsers = null;
if (whole) {
  // The console first: the browser suites and the console tests serve it.
  const built = await run('npm', ['run', '--silent', 'build:renderer']);
  timings.parts.push({ name: 'console build', ms: built.ms });
  if (built.status !== 0) process.exit(built.status);
  // One after the other, beside the tests; their output is kept and shown at the end.
  checks = (async () => {
    const results = [];
    for (const script of STATIC_CHECKS) {
      results.push({
        script,
        ...(await run('npm', ['run', '--silent', script], { capture: true })),
      });
    }
    return results;
  })();
  browsers = vitest(reports.e2e, ['--project', 'e2e'], {}, true);
}

const first = await vitest(
  reports.sqlite,
  whole ? ['--project', 'server', '--project', 'renderer'] : extra,
);
timings.parts.push({
  name: whole ? 'Vitest: server, renderer' : 'Vitest',
  ms: first.ms,
  report: reports.sqlite,
});

let second = { status: 0 };
const summaries = [reports.sqlite];
if (whole) {
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
    const folders = postgresPassFolders();
    console.log(
      `\nWhere the dialect matters, again on PostgreSQL (${url.replace(/\/\/[^@/]*@/, '//…@')}): ${folders.join(' ')}`,
    );
    second = await vitest(reports.postgres, ['--project', 'server', ...folders], {
      HERALD_TEST_DATABASE: 'postgres',
    });
    timings.parts.push({ name: 'PostgreSQL pass', ms: second.ms, report: reports.postgres });
    summaries.push(reports.postgres);
  } else if (process.env.HERALD_POSTGRES_REQUIRED === '1') {
    console.error(
      `PostgreSQL is required (HERALD_POSTGRES_REQUIRED=1) and ${url} does not answer.`,
    );
    second = { status: 1 };
  } else {
    console.log(
      `\nSkipped: the PostgreSQL pass (nothing answers at ${url}; set HERALD_TEST_POSTGRES_URL, or HERALD_POSTGRES_REQUIRED=1 to make this a failure).`,
    );
  }
}

let browserStatus = 0;
if (browsers) {
  const done = await browsers;
  browserStatus = done.status;
  console.log(`\nThe browser suites (run beside the others):\n${done.output}`);
  timings.parts.push({ name: 'Vitest: e2e (beside)', ms: done.ms, report: reports.e2e });
  summaries.push(reports.e2e);
}

let checksFailed = false;
for (const check of await checks) {
  timings.parts.push({ name: `npm run ${check.script} (beside the tests)`, ms: check.ms });
  if (check.status !== 0) {
    checksFailed = true;
    console.error(`\nnpm run ${check.script} failed:\n${check.output}`);
  }
}
timings.totalMs = Date.now() - started;
writeFileSync(reports.timings, `${JSON.stringify(timings, null, 2)}\n`);

const summary = spawnSync(
  process.execPath,
  ['scripts/test-summary.mjs', '--timings', reports.timings, ...summaries],
  { stdio: 'inherit' },
);
process.exit(
  first.status || second.status || browserStatus || summary.status || (checksFailed ? 1 : 0),
);
