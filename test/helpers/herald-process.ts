import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { ADMIN } from './herald';
import { heraldArgs } from './herald-bin';
import { createTestDatabase, keptDatabases, onPostgres } from './test-database';

const root = join(import.meta.dirname, '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface HeraldProcess {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves when the process is gone, with its exit code or the signal that ended it. */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs the real headless entry (the bundle's `herald`, herald-bin.ts) in its own process, so it
 * can be killed like a crash; resolves once it listens.
 */
export async function startHeraldProcess(
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
): Promise<HeraldProcess> {
  // On PostgreSQL a data folder has its database: a restart after a kill finds its data.
  if (onPostgres() && env.HERALD_DATABASE_URL === undefined) {
    const database = keptDatabases.get(dataDir) ?? (await createTestDatabase());
    keptDatabases.set(dataDir, database);
    env = { ...env, HERALD_DATABASE_URL: database.url };
  }
  const child = spawn(
    process.execPath,
    heraldArgs(['--data-dir', dataDir, '--port', String(port)]),
    {
      cwd: root,
      env: {
        ...process.env,
        HERALD_ADMIN_USER: ADMIN.username,
        HERALD_ADMIN_PASSWORD: ADMIN.password,
        HERALD_LOG: 'error',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  // 'close', not 'exit': it comes after the pipes are drained, so output() holds the last words.
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Herald did not start: ${out}`)), 30_000);
    const listening = () => {
      if (!out.includes('Herald is running at')) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout!.on('data', listening);
    void exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`Herald exited (${code ?? signal}) before it started: ${out}`));
    });
  });
  return { child, output: () => out, exit };
}
