import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heraldArgs } from '../../helpers/herald-bin';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Runs `server/cli.ts` until it exits, sent SIGTERM once what it printed satisfies `stopWhen`;
 * its code and everything it printed.
 */
async function runHeadless(
  dataDir: string,
  port: number,
  options: Pick<SpawnOptions, 'env' | 'uid' | 'gid'>,
  stopWhen?: (output: string) => boolean,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    heraldArgs(['--data-dir', dataDir, '--port', String(port)]),
    { cwd: root, ...options, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const read = (c: Buffer) => {
    output += c.toString();
    if (stopWhen?.(output) && !child.killed) child.kill('SIGTERM');
  };
  child.stdout!.on('data', read);
  child.stderr!.on('data', read);
  // 'close', not 'exit': it comes after the pipes are drained, so the last lines are in.
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  return { code, output };
}

describe('headless start', () => {
  let blocker: net.Server;
  let port: number;
  let dataDir: string;

  beforeAll(async () => {
    blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    port = (blocker.address() as net.AddressInfo).port;
    dataDir = mkdtempSync(join(tmpdir(), 'herald-busy-'));
  });
  afterAll(async () => {
    await new Promise<void>((r) => blocker.close(() => r()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a busy port stops Herald with a message naming the port and the way out, never another port', async () => {
    const { code, output } = await runHeadless(dataDir, port, {
      env: { ...process.env, HERALD_LOG: 'info' },
    });

    expect(code).toBe(1);
    expect(output).toContain(`Port ${port}`);
    expect(output).toContain('already in use');
    expect(output).toMatch(/--port|HERALD_PORT/);
    // It printed no address it would be listening on: no fallback port was taken.
    expect(output).not.toMatch(/https?:\/\/[^\s]+:\d+/);
  });

  // A port the OS refuses answers EACCES, as Windows does for its Hyper-V/WSL reserved ranges.
  // Reproduced for real with a privileged port and an unprivileged user, which needs root to
  // switch to.
  const canDropPrivileges =
    process.platform !== 'win32' &&
    process.getuid?.() === 0 &&
    // The checkout must be readable by that user (a clone under /root is not).
    spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(root)})`], {
      uid: 65534,
      gid: 65534,
    }).status === 0;
  if (!canDropPrivileges)
    console.warn('EACCES test skipped: needs root and a checkout nobody can read');
  it.skipIf(!canDropPrivileges)(
    'a port the OS refuses (EACCES) stops Herald with the refusal named and the way out',
    async () => {
      const open = mkdtempSync(join(tmpdir(), 'herald-refused-'));
      chmodSync(open, 0o777);
      try {
        const { code, output } = await runHeadless(join(open, 'data'), 80, {
          // nobody: may not bind ports below 1024.
          uid: 65534,
          gid: 65534,
          env: { ...process.env, HOME: open },
        });

        expect(code).toBe(1);
        expect(output).toContain('Port 80 on 127.0.0.1 is refused by the operating system');
        expect(output).toMatch(/--port|HERALD_PORT/);
        expect(output).not.toMatch(/\n\s+at /);
      } finally {
        rmSync(open, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

/** Starts `server/cli.ts` on a new folder, stops it with SIGTERM once it runs: what it printed. */
async function startAndStop(
  format: 'json' | 'text',
): Promise<{ code: number | null; output: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-announce-'));
  try {
    return await runHeadless(
      dataDir,
      0,
      { env: { ...process.env, HERALD_LOG: 'error', HERALD_LOG_FORMAT: format } },
      (output) => output.includes('setup code'),
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('what the headless start prints', () => {
  it('in JSON, every line is a record: the address, the setup code as a field, the stop', async () => {
    const { code, output } = await startAndStop('json');
    expect(code).toBe(0);
    const lines = output.split('\n').filter((line) => line !== '');
    const records = lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON record: ${line}`);
      }
    });
    const running = records.find((r) => String(r.msg).startsWith('Herald is running at '));
    expect(running?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const setup = records.find((r) => r.setupCode !== undefined);
    expect(setup?.setupCode).toMatch(/^[A-Z0-9]{5}-[A-Z0-9]{5}$/);
    expect(setup?.setupUrl).toBe(
      `${String(running?.url)}/sign-in?code=${String(setup?.setupCode)}`,
    );
    expect(setup?.level).toBe('info');
    expect(records.at(-1)).toMatchObject({
      msg: 'SIGTERM received: stopping Herald…',
      signal: 'SIGTERM',
    });
  }, 60_000);

  it('in text, the plain lines and the banner a person reads', async () => {
    const { code, output } = await startAndStop('text');
    expect(code).toBe(0);
    expect(output).toMatch(/^Herald is running at http:\/\/127\.0\.0\.1:\d+ \(data: /m);
    expect(output).toMatch(/^ {2}or enter the one-time setup code: [A-Z0-9]{5}-[A-Z0-9]{5}$/m);
    expect(output).not.toContain('{"level"');
    expect(output).toMatch(/^SIGTERM received: stopping Herald…$/m);
  }, 60_000);
});

describe('a stop asked for while Herald starts', () => {
  it('SIGTERM before the start has finished lets it finish, then stops cleanly with code 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-early-stop-'));
    try {
      // The administrator is created from the environment inside the start, before the listen.
      const { code, output } = await runHeadless(
        dataDir,
        0,
        {
          env: {
            ...process.env,
            HERALD_LOG: 'info',
            HERALD_ADMIN_USER: 'admin',
            HERALD_ADMIN_PASSWORD: 'correct horse battery',
          },
        },
        (printed) => printed.includes('created administrator'),
      );
      expect(code, output).toBe(0);
      expect(output).toMatch(/SIGTERM received: stopping Herald…/);
      expect(output).not.toMatch(/Herald is running at/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
