import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ADMIN } from '../../helpers/herald';
import { heraldArgs } from '../../helpers/herald-bin';
import { freePort } from '../../helpers/herald-process';
import { createTestDatabase, dropTestDatabase, onPostgres } from '../../helpers/test-database';

/**
 * Issue 42 §10: HERALD_LOG_FILE, with a real headless Herald (the bundle's `herald`) writing
 * enough to rotate at the desktop's fixed cap (5 MiB, three older files), read back from disk.
 */

const MAX_BYTES = 5 * 1024 * 1024;
const root = join(import.meta.dirname, '..', '..', '..');

interface Run {
  port: number;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
  stop(): Promise<number | null>;
}

let dir: string;
const databases: string[] = [];
const running: Run[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'herald-log-file-'));
});

afterEach(async () => {
  for (const run of running.splice(0)) await run.stop();
  for (const name of databases.splice(0)) await dropTestDatabase(name);
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `herald start` with `env` on top of this process's; `ready` waits until it listens. */
async function runHerald(
  env: Record<string, string>,
  args: string[] = [],
  ready = true,
): Promise<Run> {
  const port = await freePort();
  const databaseEnv: Record<string, string> = {};
  if (onPostgres()) {
    const database = await createTestDatabase();
    databases.push(database.name);
    databaseEnv.HERALD_DATABASE_URL = database.url;
  }
  const child = spawn(
    process.execPath,
    heraldArgs(['start', '--data-dir', join(dir, 'data'), '--port', String(port), ...args]),
    {
      cwd: root,
      env: { ...process.env, ...databaseEnv, HERALD_LOG: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  const run: Run = {
    port,
    stdout: () => out,
    stderr: () => err,
    exit,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exit;
    },
  };
  running.push(run);
  if (ready) {
    const deadline = Date.now() + 30_000;
    while (!out.includes('Herald is running at')) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`Herald did not start:\n${out}${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return run;
}

const linesOf = (text: string): string[] => text.split('\n').filter((line) => line !== '');
const read = (file: string): string => readFileSync(file, 'utf8');

/** Whether `file` holds exactly the lines of `a` and `b`, each in its own order. */
function interleavingOf(file: string, a: string, b: string): boolean {
  const left = linesOf(a);
  const right = linesOf(b);
  let i = 0;
  let j = 0;
  for (const line of linesOf(file)) {
    if (i < left.length && left[i] === line) i++;
    else if (j < right.length && right[j] === line) j++;
    else return false;
  }
  return i === left.length && j === right.length;
}

describe('HERALD_LOG_FILE', () => {
  it('holds the lines printed, rotates at 5 MiB into three older files, and ends with the stop', async () => {
    // A folder that does not exist yet: Herald creates it.
    const file = join(dir, 'logs', 'herald.log');
    const run = await runHerald({
      HERALD_LOG_FILE: file,
      HERALD_LOG_FORMAT: 'json',
      HERALD_ADMIN_USER: ADMIN.username,
      HERALD_ADMIN_PASSWORD: ADMIN.password,
    });
    const base = `http://127.0.0.1:${run.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await fetch(`${base}/api/console/status`);

    // Before any rotation the file is what Herald printed, line for line.
    await expect.poll(() => run.stdout()).toContain('/api/console/status');
    const printed = [...linesOf(run.stdout()), ...linesOf(run.stderr())].sort();
    expect(linesOf(read(file)).sort()).toEqual(printed);
    const started = linesOf(read(file)).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(started.find((r) => String(r.msg).startsWith('Herald is running at'))).toMatchObject({
      level: 'info',
      url: base,
    });
    expect(started.some((r) => r.module === 'access' && r.path === '/api/console/status')).toBe(
      true,
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // About 15 KB per access line (the path is logged without its query): past four files of
    // 5 MiB, so the oldest is dropped.
    const longPath = `/api/no-such-route/${'a'.repeat(15_000)}`;
    const requests = Math.ceil((5.2 * MAX_BYTES) / 15_000);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < requests) {
          next++;
          const res = await fetch(`${base}${longPath}?n=${next}`);
          await res.arrayBuffer();
        }
      }),
    );
    const lastPath = `/api/console/status?last`;
    await fetch(`${base}${lastPath}`);
    const rotated = [3, 2, 1].map((n) => join(dir, 'logs', `herald.${n}.log`));
    await expect.poll(() => read(file).includes('/api/console/status?…')).toBe(true);
    expect(existsSync(join(dir, 'logs', 'herald.4.log'))).toBe(false);
    for (const older of rotated) {
      const size = statSync(older).size;
      expect(size).toBeLessThanOrEqual(MAX_BYTES);
      // Rotated when the next line would not fit: full but for less than one line.
      expect(size).toBeGreaterThan(MAX_BYTES - 16_000);
    }
    expect(statSync(file).size).toBeLessThanOrEqual(MAX_BYTES);

    expect(await run.stop()).toBe(0);
    // The files, oldest first, are the end of what Herald printed: nothing lost or reordered
    // between the rotations, the earliest lines dropped with the oldest file.
    // stdout's lines only: a warning on stderr has no fixed place among them.
    const warnings = new Set(linesOf(run.stderr()));
    const kept = [...rotated, file]
      .flatMap((f) => linesOf(read(f)))
      .filter((l) => !warnings.has(l));
    const out = linesOf(run.stdout());
    expect(kept.length).toBeLessThan(out.length);
    expect(kept).toEqual(out.slice(out.length - kept.length));
    expect(kept.some((l) => l.includes('Herald is running at'))).toBe(false);
    for (const line of kept) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(kept.some((l) => (JSON.parse(l) as { signal?: string }).signal === 'SIGTERM')).toBe(
      true,
    );
  }, 180_000);

  it('in the text format, holds the setup banner as printed', async () => {
    const file = join(dir, 'herald.log');
    const env: Record<string, string> = { HERALD_LOG_FILE: file, HERALD_LOG_FORMAT: 'text' };
    const run = await runHerald(env);
    // No administrator: the first start prints its setup code, over several lines.
    await expect.poll(() => read(file)).toContain('one-time setup code');
    expect(await run.stop()).toBe(0);
    // Both streams' lines, each stream's in its order: which of two lines written at once to
    // stdout and stderr reaches the file first is the order of the writes, not of the streams.
    expect(interleavingOf(read(file), run.stdout(), run.stderr())).toBe(true);
    expect(read(file)).toMatch(/Herald is running at http:\/\/127\.0\.0\.1:\d+ \(data: /);
    expect(read(file)).toContain('SIGTERM received: stopping Herald');
  }, 60_000);

  it('says why a start failed', async () => {
    const file = join(dir, 'herald.log');
    const run = await runHerald({ HERALD_LOG_FILE: file }, ['--port', 'ten'], false);
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toContain('port must be a number');
    expect(read(file)).toBe(run.stderr());
  }, 60_000);

  it('stops the start, naming the variable, when the file cannot be created', async () => {
    // A file where the folder should be: the folder cannot be made, whoever runs the test.
    writeFileSync(join(dir, 'not-a-folder'), '');
    const file = join(dir, 'not-a-folder', 'herald.log');
    const run = await runHerald({ HERALD_LOG_FILE: file }, [], false);
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toContain(`HERALD_LOG_FILE (${file}) cannot be written`);
    expect(run.stdout()).not.toContain('Herald is running');
    expect(existsSync(join(dir, 'data'))).toBe(false);
  }, 60_000);
});
