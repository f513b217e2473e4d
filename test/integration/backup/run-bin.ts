import { join } from 'node:path';
import { heraldArgs } from '../../helpers/herald-bin';
import { runNodeToExit, type ProcessResult } from '../../helpers/run-to-exit';

const ROOT = join(import.meta.dirname, '..', '..', '..');

export type BinResult = ProcessResult;

/**
 * Runs `herald <args>` as its own process (the bundle's bin, test/helpers/herald-bin.ts, which
 * `npm run backup -- …` runs too), with the key variables cleared unless `env` sets them.
 */
export function runBin(args: string[], env: Record<string, string> = {}): Promise<BinResult> {
  const base = { ...process.env };
  for (const name of ['HERALD_SECRET_KEY', 'HERALD_SECRET_KEY_FILE', 'HERALD_DATABASE_URL']) {
    delete base[name];
  }
  delete base.HERALD_DATA_DIR;
  return runNodeToExit(heraldArgs(args), { cwd: ROOT, env: { ...base, ...env } });
}
