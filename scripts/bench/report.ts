/** The bench's rows as printed while it runs, and the report file they end in. */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { BenchOptions } from './options';
import { round1 } from './shared';

export interface Row {
  what: string;
  herald: Record<string, number>;
  ceiling?: Record<string, number>;
  ratio?: number;
  /** The ceiling app with Herald's request classes (bare-express.ts --born), and the ratio to it. */
  sameClasses?: { rps: number; ratio: number };
  rounds: number;
  bar: string;
}

export function printRow(row: Row) {
  const fmt = (o: Record<string, number> | undefined) =>
    o
      ? Object.entries(o)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')
      : '';
  const ceiling = row.ceiling ? ` | ceiling: ${fmt(row.ceiling)} | ratio ${row.ratio}` : '';
  const same = row.sameClasses
    ? `\n  bare Express with Herald's request classes: rps ${row.sameClasses.rps} | ratio ${row.sameClasses.ratio}`
    : '';
  console.log(`${row.what}\n  Herald: ${fmt(row.herald)}${ceiling} | bar: ${row.bar}${same}`);
}

/** bench/results/latest.json (or --out): the machine, the run's settings and its rows. */
export function writeReport(options: BenchOptions, rows: Row[]) {
  const { rounds, seconds, sends, starts, idleSeconds, quick, outFile } = options;
  const cpus = os.cpus();
  const report = {
    machine: {
      cores: cpus.length,
      cpu: cpus[0]?.model ?? 'unknown',
      memoryGb: round1(os.totalmem() / 2 ** 30),
      os: `${os.type()} ${os.release()}`,
      node: process.version,
      date: new Date().toISOString(),
    },
    settings: { rounds, seconds, sends, starts, idleSeconds, quick },
    rows,
  };
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`written to ${path.relative(process.cwd(), outFile)}`);
}
