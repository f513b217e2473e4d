import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Runs `server/cli.ts` until it exits; its code and everything it printed. */
async function runHeadless(
  dataDir: string,
  port: number,
  options: Pick<SpawnOptions, 'env' | 'uid' | 'gid'>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'server/cli.ts'), '--data-dir', dataDir, '--port', String(port)],
    { cwd: root, ...options, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
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
