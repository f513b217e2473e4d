import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { DataDirLockedError, startServer } from '../../../server/index';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { ADMIN, startTestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';
import { heraldArgs } from '../../helpers/herald-bin';

const root = join(import.meta.dirname, '..', '..', '..');
const mode = (path: string) => statSync(path).mode & 0o777;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The real headless entry in its own process; resolves with its output once it runs or exits. */
function runCli(dataDir: string, port: number) {
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
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const outcome = new Promise<{ running: boolean; code: number | null; output: string }>(
    (resolve) => {
      let output = '';
      const onData = (d: Buffer) => {
        output += d.toString();
        if (output.includes('Herald is running at')) resolve({ running: true, code: null, output });
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => resolve({ running: false, code, output }));
    },
  );
  return { child, outcome };
}

/** Every file of the folder with its size, mtime and content hash: what "nothing written" means. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir).map((name) => {
      const file = join(dir, name);
      const st = statSync(file);
      const hash = createHash('sha256').update(readFileSync(file)).digest('hex');
      return [name, `${st.size}:${st.mtimeMs}:${mode(file).toString(8)}:${hash}`];
    }),
  );
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once('exit', r));

describe('data folder permissions and lock', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  let peer: HttpPeer;
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-datadir-'));
    dirs.push(dir);
    return dir;
  };

  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await peer?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it.skipIf(process.platform === 'win32')(
    'startServer() leaves the folder 0700 and the database, WAL, SHM, key and lock 0600 after real sends',
    async () => {
      peer = await startHttpPeer();
      const herald = await startTestHerald({ dataDir: tempDir() });
      try {
        const ch = await herald.createChannel('webhook', { url: peer.url });
        const { token } = await herald.createTemplate({ text: 'files {{n}}' }, [
          { channelId: ch.id, contentType: 'text' },
        ]);
        for (let i = 0; i < 3; i++) {
          const res = await herald.sendV2({
            token,
            title: `t${i}`,
            placeholders: { n: String(i) },
          });
          expect(res.body).toMatchObject({ code: 200 });
        }
        await peer.waitForRequests(3);
        const names = readdirSync(herald.dataDir).sort();
        // On PostgreSQL the folder keeps the key and the lock, and no database file.
        const databaseFiles = onPostgres() ? [] : ['herald.db', 'herald.db-shm', 'herald.db-wal'];
        expect(names).toEqual(
          expect.arrayContaining([...databaseFiles, 'herald.lock', 'secret.key']),
        );
        if (onPostgres()) expect(names.filter((n) => n.startsWith('herald.db'))).toEqual([]);
        expect(mode(herald.dataDir).toString(8)).toBe('700');
        for (const name of names)
          expect([name, mode(join(herald.dataDir, name)).toString(8)]).toEqual([name, '600']);
      } finally {
        await herald.close();
      }
      expect(existsSync(join(herald.dataDir, 'herald.lock'))).toBe(false);
    },
  );

  it.skipIf(process.platform === 'win32')(
    'startServer() tightens a folder left 0755 with 0644 files by an older version, and its data still works',
    async () => {
      const dataDir = tempDir();
      const first = await startTestHerald({ dataDir });
      const ch = await first.createChannel('webhook', { url: 'http://127.0.0.1:9/hook' }, 'kept');
      await first.close();
      chmodSync(dataDir, 0o755);
      for (const name of readdirSync(dataDir)) chmodSync(join(dataDir, name), 0o644);

      const again = await startTestHerald({ dataDir });
      try {
        expect(mode(dataDir).toString(8)).toBe('700');
        for (const name of readdirSync(dataDir))
          expect([name, mode(join(dataDir, name)).toString(8)]).toEqual([name, '600']);
        expect((await again.console.ok('GET', `/channels/${ch.id}`)).name).toBe('kept');
      } finally {
        await again.close();
      }
    },
  );

  it("a second startServer() on the same folder fails naming the first one's pid and writes nothing", async () => {
    const herald = await startTestHerald({ dataDir: tempDir() });
    try {
      const before = snapshot(herald.dataDir);
      const second = startServer({ host: '127.0.0.1', port: 0, dataDir: herald.dataDir });
      await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
      await expect(second).rejects.toThrow(`(pid ${process.pid})`);
      expect(snapshot(herald.dataDir)).toEqual(before);
      // The first one still owns it and still works.
      expect(readFileSync(join(herald.dataDir, 'herald.lock'), 'utf8').split('\n')[0]).toBe(
        String(process.pid),
      );
      expect((await herald.console.get('/channels')).status).toBe(200);
    } finally {
      await herald.close();
    }
  });

  it('a second `tsx server/cli.ts` on the same folder exits non-zero at once, naming the first pid', async () => {
    const dataDir = tempDir();
    const first = runCli(dataDir, await freePort());
    children.push(first.child);
    expect((await first.outcome).running).toBe(true);
    const before = snapshot(dataDir);

    const second = runCli(dataDir, await freePort());
    children.push(second.child);
    const result = await second.outcome;
    expect(result.running).toBe(false);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(`in use by another Herald (pid ${first.child.pid})`);
    expect(snapshot(dataDir)).toEqual(before);
  }, 60_000);

  it('a lock left by a SIGKILLed Herald does not prevent the next start', async () => {
    const dataDir = tempDir();
    const crashed = runCli(dataDir, await freePort());
    children.push(crashed.child);
    expect((await crashed.outcome).running).toBe(true);
    crashed.child.kill('SIGKILL');
    await exited(crashed.child);
    const lockFile = join(dataDir, 'herald.lock');
    expect(readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(crashed.child.pid));

    const next = await startTestHerald({ dataDir });
    try {
      expect(readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(process.pid));
      expect((await next.console.get('/channels')).status).toBe(200);
    } finally {
      await next.close();
    }
  }, 60_000);
});
