/**
 * Runs the docs' examples as a reader pastes them: `bash -euo pipefail` on the block's text, with
 * only the reader's own substitutions made (the address of their Herald, the token they copied,
 * their paths), `herald` on PATH as `npm link` puts it, and nothing of the test's environment
 * that would change what Herald does.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

import { HERALD_BIN } from '../../helpers/herald-bin';
import { type DocBlock, commandsOf, whereIs } from './doc-example-blocks';

/**
 * The block's commands with the reader's substitutions made, each `[as written, as the reader
 * types it]`. A substitution whose text is no longer in the block fails: the doc changed, and the
 * test must be looked at again rather than run something else.
 */
export function asTyped(
  block: DocBlock,
  substitutions: ReadonlyArray<[string, string]> = [],
): string {
  let code = commandsOf(block);
  for (const [written, typed] of substitutions) {
    if (!code.includes(written))
      throw new Error(`${whereIs(block)} no longer holds "${written}", which the test substitutes`);
    code = code.split(written).join(typed);
  }
  return code;
}

/** Variables of the test's own run that a reader's shell does not have. */
const NOT_THE_READERS = [
  'HERALD_ADMIN_USER',
  'HERALD_ADMIN_PASSWORD',
  'HERALD_ADMIN_PASSWORD_FILE',
  'HERALD_DATA_DIR',
  'HERALD_PORT',
  'HERALD_HOST',
  'HERALD_URL',
  'HERALD_TOKEN',
  'HERALD_TOKEN_FILE',
  'HERALD_SECRET_KEY',
  'HERALD_SECRET_KEY_FILE',
  'HERALD_DATABASE_URL',
  'HERALD_DATABASE_URL_FILE',
  'HERALD_METRICS',
  'HERALD_METRICS_TOKEN',
  'HERALD_LOG',
  'HERALD_LOG_FORMAT',
];

/**
 * A reader's shell: `herald` on PATH (a link to the bundle's bin, as `npm link` makes it, in
 * `home`/bin), no `~/.config/herald/cli.json` of this machine's, and `extra` on top.
 */
export function readerEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  try {
    symlinkSync(HERALD_BIN, join(bin, 'herald'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of NOT_THE_READERS) delete env[name];
  return {
    ...env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    XDG_CONFIG_HOME: join(home, 'config'),
    ...extra,
  };
}

export interface ShellRun {
  stdout: string;
  stderr: string;
}

/** Runs commands with `bash -euo pipefail`; rejects with both outputs when they fail. */
export function runShell(
  code: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ShellRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', code], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      if (exitCode === 0) resolve({ stdout, stderr });
      else
        reject(
          new Error(
            `the example ended with ${exitCode ?? signal}\n--- commands\n${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`,
          ),
        );
    });
  });
}

/** An example whose last command starts Herald and keeps it running, as a reader leaves it. */
export interface RunningExample {
  /** The address Herald printed. */
  url: string;
  output(): string;
  /** SIGTERM to the example's process group (its shell and Herald), as Ctrl-C would end it. */
  stop(): Promise<void>;
}

const RUNNING_AT = /Herald is running at (http:\/\/[^\s"]+)/;

/** Runs an example that ends in a start, and resolves once Herald says where it listens. */
export function startExample(
  code: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunningExample> {
  // Its own process group, so that stopping it reaches Herald under the shell.
  const child = spawn('bash', ['-euo', 'pipefail', '-c', code], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const closed = new Promise<void>((r) => child.once('close', () => r()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      return;
    }
    const killer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }, 20_000);
    await closed;
    clearTimeout(killer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(
        new Error(
          `Herald did not start within the example:\n--- commands\n${code}\n--- output\n${out}`,
        ),
      );
    }, opts.timeoutMs ?? 60_000);
    const look = () => {
      const url = RUNNING_AT.exec(out)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.stdout.off('data', look);
      resolve({ url, output: () => out, stop });
    };
    child.stdout.on('data', look);
    void closed.then(() => {
      clearTimeout(timer);
      reject(
        new Error(
          `the example ended before Herald started:\n--- commands\n${code}\n--- output\n${out}`,
        ),
      );
    });
  });
}
