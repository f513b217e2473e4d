import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { heraldArgs } from '../../helpers/herald-bin';

const ROOT = join(import.meta.dirname, '..', '..', '..');

export interface BinResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

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
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, heraldArgs(args), {
      cwd: ROOT,
      env: { ...base, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
