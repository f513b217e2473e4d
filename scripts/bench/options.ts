/** `npm run bench`'s flags, read and checked once. */
import path from 'node:path';
import { parseArgs } from 'node:util';

/** The rows `--only` picks from, in the order they run. */
export const ROWS = ['v2', 'v1', 'two', 'deliver', 'floor', 'worker', 'reader', 'start'] as const;
export type RowName = (typeof ROWS)[number];

export interface BenchOptions {
  quick: boolean;
  rounds: number;
  seconds: number;
  sends: number;
  /** Sends per run of the floor row: 10,000 unless `--sends` (or `--quick`) says otherwise. */
  floorSends: number;
  starts: number;
  idleSeconds: number;
  profile: boolean;
  /** Where the report is written. */
  outFile: string;
  /** Whether `--only` (or its absence) asks for the row. */
  runs(row: RowName): boolean;
}

/** The flags of this process; `--quick` makes every default smaller. */
export function readOptions(root: string): BenchOptions {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      sends: { type: 'string' },
      starts: { type: 'string' },
      idle: { type: 'string' },
      profile: { type: 'boolean', default: false },
      out: { type: 'string' },
      only: { type: 'string' },
    },
  });
  const only = new Set(values.only ? values.only.split(',').map((r) => r.trim()) : ROWS);
  for (const r of only) {
    if (!(ROWS as readonly string[]).includes(r)) {
      throw new Error(`--only: unknown row "${r}"; rows are ${ROWS.join(', ')}`);
    }
  }
  const quick = values.quick;
  const rounds = Number(values.rounds ?? (quick ? 1 : 3));
  const seconds = Number(values.seconds ?? (quick ? 2 : 5));
  const sends = Number(values.sends ?? (quick ? 300 : 3000));
  const floorSends = Number(values.sends ?? (quick ? 1000 : 10_000));
  const starts = Number(values.starts ?? (quick ? 1 : 3));
  const idleSeconds = Number(values.idle ?? (quick ? 2 : 5));
  const outFile = path.resolve(
    values.out ?? path.join(root, 'bench', 'results', quick ? 'quick.json' : 'latest.json'),
  );
  for (const [name, n] of Object.entries({ rounds, seconds, sends, starts, idleSeconds })) {
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  }
  return {
    quick,
    rounds,
    seconds,
    sends,
    floorSends,
    starts,
    idleSeconds,
    profile: values.profile,
    outFile,
    runs: (row) => only.has(row),
  };
}
