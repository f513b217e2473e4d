import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Issue 42 §2, with the real process tree a person gets from `npm run serve &` then `kill $!`:
 * npm, its `sh -c`, and Herald's node. npm passes the signal to the shell, and the shell ends
 * without passing it on; Herald, left without the parent that started it, must stop the way a
 * SIGTERM stops it rather than go on serving and holding its folder.
 */
describe('stopping npm stops Herald', () => {
  let dataDir: string;
  const leftovers: number[] = [];

  afterEach(() => {
    for (const pid of leftovers.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  // SIGINT alone to npm's process still does not reach Herald: the shell defers it until its
  // child ends (Ctrl-C in a terminal signals the whole group, Herald included). Issue 42 §2.
  for (const signal of ['SIGTERM'] as const) {
    it(`${signal} to npm's process runs Herald's ordered shutdown and frees the folder`, async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'herald-npm-stop-'));
      const npm = spawn(
        'npm',
        ['run', '--silent', 'serve', '--', '--data-dir', dataDir, '--port', '0'],
        {
          cwd: root,
          env: {
            ...process.env,
            HERALD_LOG: 'info',
            HERALD_DATABASE_URL: '',
            HERALD_WRITE_WORKER_FILE: '',
            HERALD_BACKUP_WORKER_FILE: '',
            HERALD_DELIVERY_WORKER_FILE: '',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      leftovers.push(npm.pid!);
      let output = '';
      let running: () => void = () => undefined;
      const started = new Promise<void>((r) => (running = r));
      // Herald's own output still reaches us through the pipes after npm and the shell are gone.
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Herald is running at')) running();
      };
      npm.stdout.on('data', read);
      npm.stderr.on('data', read);
      await Promise.race([
        started,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error(`Herald did not start:\n${output}`)), 60_000),
        ),
      ]);
      const herald = Number(/"pid":(\d+)/.exec(output)?.[1]);
      expect(herald, output).toBeGreaterThan(0);
      expect(herald).not.toBe(npm.pid);
      leftovers.push(herald);
      expect(existsSync(join(dataDir, 'herald.lock'))).toBe(true);

      npm.kill(signal);
      for (let i = 0; i < 200 && alive(herald); i++) await new Promise((r) => setTimeout(r, 100));
      expect(alive(herald), output).toBe(false);
      expect(output).toMatch(/SIGTERM received: stopping Herald…/);
      expect(existsSync(join(dataDir, 'herald.lock')), output).toBe(false);
    }, 90_000);
  }
});
