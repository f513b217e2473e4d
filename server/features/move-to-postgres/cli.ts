import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { redactDatabaseUrl } from '../../config/database-url';
import * as serverKey from '../../crypto/server-key';
import { errorMessage } from '../../lib/errors';
import { MoveRefused } from './move-refused';
import { moveToPostgres, type MoveReport } from './move';

const USAGE = `Usage: herald migrate-to-postgres <data folder> <postgres URL>
       (npm run migrate:to-postgres -- <data folder> <postgres URL> from a checkout)
  <data folder>   a stopped Herald's data folder (the one holding herald.db); only read
  <postgres URL>  an empty PostgreSQL database: postgres://user:password@host:5432/herald
Progress goes to stderr, the counts and the key to use to stdout.`;

export function parseMoveArgs(argv: string[]): { dataDir: string; url: string } | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return 'help';
  if (positionals.length !== 2) {
    throw new Error(
      `give the data folder and the PostgreSQL URL (${positionals.length} argument(s) given)`,
    );
  }
  return { dataDir: resolve(positionals[0]), url: positionals[1] };
}

export function formatCounts(report: MoveReport): string {
  const width = Math.max(5, ...report.tables.map((t) => t.table.length));
  const lines = [
    `${'table'.padEnd(width)}  ${'SQLite'.padStart(9)}  ${'PostgreSQL'.padStart(10)}`,
    ...report.tables.map(
      (t) =>
        `${t.table.padEnd(width)}  ${String(t.source).padStart(9)}  ${String(t.target).padStart(10)}`,
    ),
  ];
  return lines.join('\n');
}

/**
 * What the PostgreSQL processes must be given: the rows were copied sealed, so only the key
 * they were sealed with opens them. Herald versions with HERALD_SECRET_KEY_FILE can point every
 * process at the key file; without it, the file is copied into each process's data folder.
 */
export function keyAdvice(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = join(dataDir, serverKey.KEY_FILE);
  const hasKeyFile = 'readServerKey' in serverKey;
  if (env.HERALD_SECRET_KEY) {
    return [
      'The key: HERALD_SECRET_KEY is set here. If the SQLite Herald ran with it, its tokens and',
      'secrets are sealed with it: give every Herald process on PostgreSQL the same HERALD_SECRET_KEY.',
      existsSync(file) ? `(If it did not, the key is ${file}.)` : '',
    ]
      .filter(Boolean)
      .join('\n');
  }
  if (!existsSync(file)) {
    return `The key: ${file} is missing. Tokens and secrets were sealed with the key that Herald ran with (HERALD_SECRET_KEY or a key file): give every process on PostgreSQL that key.`;
  }
  return [
    `The key: tokens and channel secrets in the database are sealed with ${file}.`,
    'Every Herald process on PostgreSQL must use this key, or old tokens stop working and stored',
    'secrets cannot be read:',
    hasKeyFile
      ? `  HERALD_SECRET_KEY_FILE=${file}   (or copy that file to where each process can read it)`
      : `  copy ${file} into each process's --data-dir as secret.key (mode 0600) before its first start,`,
    hasKeyFile ? '' : `  or run a single process with --data-dir ${dataDir}.`,
    'Keep the key with your backups of the database.',
  ]
    .filter(Boolean)
    .join('\n');
}

export async function runMoveCli(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseMoveArgs(argv);
  } catch (err) {
    console.error(`${errorMessage(err)}\n\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    console.log(USAGE);
    return 0;
  }
  const target = redactDatabaseUrl(args.url);
  try {
    console.log(`Moving ${args.dataDir} to ${target}`);
    // On stderr, so stdout holds only the report (and a redirect keeps it alone).
    const report = await moveToPostgres(args.dataDir, args.url, {
      write: (line) => process.stderr.write(`  ${line}\n`),
    });
    console.log(
      `\nRows, per table (checked before the copy was committed):\n${formatCounts(report)}`,
    );
    if (report.notCopied.length > 0) {
      console.log(`Not copied (PostgreSQL has no such table): ${report.notCopied.join(', ')}.`);
    }
    console.log(
      report.rollupsMatchSource
        ? 'Search index (pg_trgm), counters and dashboard roll-ups: built on PostgreSQL from the copied rows; the roll-ups equal the source’s.'
        : 'Search index (pg_trgm), counters and dashboard roll-ups: built on PostgreSQL from the copied rows (the source’s roll-ups differed from its rows; PostgreSQL’s match them).',
    );
    console.log(`\n${keyAdvice(args.dataDir)}`);
    console.log(
      `\nStart Herald on it with HERALD_DATABASE_URL=${target} (and the key above).\n` +
        `${args.dataDir} was not changed; do not start Herald on SQLite there again, or the two will drift apart.`,
    );
    return 0;
  } catch (err) {
    const why = err instanceof MoveRefused ? err.message : `the move failed: ${errorMessage(err)}`;
    console.error(`${why}\nNothing was copied.`);
    return 1;
  }
}
