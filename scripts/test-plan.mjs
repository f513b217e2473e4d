/**
 * What `npm test` runs where (scripts/run-tests.mjs): which folders of test/integration run again
 * on PostgreSQL, and the static checks that run beside the tests. Every folder of
 * test/integration must be classified here; test/unit/test-support/test-plan.test.ts fails on
 * one that is not, so a new folder is never silently left out of (or added to) the second pass.
 */

/**
 * How each folder of test/integration meets the database:
 * - `both`: what it checks goes through SQL that differs by dialect (the hot path's statements,
 *   migrations, the history index, roll-ups, recovery, the import's writes): it runs on SQLite,
 *   then again on PostgreSQL;
 * - `postgres`: it starts its own PostgreSQL databases whatever the pass, so it runs once, in
 *   the first pass;
 * - `sqlite`: the dialect does not change what it checks (a channel's HTTP, the command line,
 *   the desktop shell, packaging, an attack refused before anything is stored): once, on SQLite.
 * Each entry says why, for the next person who wonders.
 */
export const INTEGRATION_FOLDERS = {
  send: { db: 'both', why: 'accept, dedup and idempotency statements' },
  delivery: { db: 'both', why: 'claims, outcomes, the write path and retries' },
  history: { db: 'both', why: 'the send log, search index, roll-ups and retention' },
  console: { db: 'both', why: 'the console API reads and writes every table' },
  schedules: { db: 'both', why: 'schedules and their runs, claimed once across processes' },
  backup: { db: 'both', why: 'backup refusals and advice differ on PostgreSQL' },
  start: { db: 'both', why: 'migrations and upgrades of an existing install, per dialect' },
  crash: { db: 'both', why: 'recovery after a kill uses each dialect’s statements' },
  ops: { db: 'both', why: 'the server key’s fingerprint row, health and metrics queries' },
  'message-nest': { db: 'both', why: 'the import writes a whole Herald database' },
  'several-processes': { db: 'postgres', why: 'Heralds sharing one PostgreSQL database' },
  database: { db: 'postgres', why: 'PostgreSQL unreachable at start or lost at run time' },
  'move-to-postgres': { db: 'postgres', why: 'copies a SQLite folder into PostgreSQL' },
  channels: { db: 'sqlite', why: 'each platform against its loopback peer: HTTP, not SQL' },
  hooks: { db: 'sqlite', why: 'hooks store through the send path, which send covers' },
  security: { db: 'sqlite', why: 'attacks are refused before anything is stored' },
  cli: { db: 'sqlite', why: '`herald send` talks HTTP' },
  docs: { db: 'sqlite', why: 'the documented examples, run as written' },
  logging: { db: 'sqlite', why: 'the access log and the log sinks' },
  main: { db: 'sqlite', why: 'the desktop app keeps SQLite in its own folder' },
  packaging: { db: 'sqlite', why: 'bundles and packages, no database' },
  'console-files': { db: 'sqlite', why: 'the built console’s files over HTTP, no database' },
  bench: { db: 'sqlite', why: 'the benchmark’s own processes' },
};

/**
 * Files of a SQLite-once folder that run on PostgreSQL too, with why: issue 45 asks for its four
 * kinds to deliver through Herald on both databases, and PushPlus counts its day in SQL.
 */
export const POSTGRES_ALSO = {
  'channels/pushplus-serverchan-e2e.test.ts': 'PushPlus’s daily count is an SQL upsert',
  'channels/wxpusher.test.ts': 'issue 45: each new kind delivers through Herald on both',
  'channels/dingtalk-work.test.ts': 'issue 45: each new kind delivers through Herald on both',
};

/** The folders (and single files) the PostgreSQL pass runs, as vitest file filters. */
export function postgresPassFolders() {
  return [
    ...Object.entries(INTEGRATION_FOLDERS)
      .filter(([, entry]) => entry.db === 'both')
      .map(([folder]) => `test/integration/${folder}/`),
    ...Object.keys(POSTGRES_ALSO).map((file) => `test/integration/${file}`),
  ];
}

/**
 * The static checks, by their npm scripts (package.json holds the commands), run beside the
 * tests: their CPU overlaps the tests' waiting on HTTP peers, child processes and timers.
 */
export const STATIC_CHECKS = ['typecheck', 'lint'];
