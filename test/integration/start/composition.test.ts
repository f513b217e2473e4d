import { mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { startServer } from '../../../server/index';

/** Files under `dir` this process holds open (Linux: /proc/self/fd). */
function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(`${dir}/`) ? [target] : [];
    } catch {
      return []; // the descriptor readdir itself used is gone by now
    }
  });
}

describe('composition root', () => {
  let dir: string;
  const saved = { ...process.env };

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'herald-compose-')));
  });

  afterEach(() => {
    process.env = { ...saved };
    rmSync(dir, { recursive: true, force: true });
  });

  it('a start that fails after the database is open closes it and leaves the folder free', async () => {
    // The port is taken after the database is open and migrated (a refused setting stops the
    // start before that: refused-settings.test.ts).
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await expect(startServer({ dataDir: dir, port, startDispatcher: false })).rejects.toThrow(
        `Port ${port} on 127.0.0.1 is already in use`,
      );
      expect(readdirSync(dir)).toContain('herald.db');
      expect(openFilesUnder(dir)).toEqual([]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }

    const server = await startServer({ dataDir: dir, port, startDispatcher: false });
    try {
      expect(openFilesUnder(dir).some((f) => f.endsWith('herald.db'))).toBe(true);
    } finally {
      await server.close();
    }
    expect(openFilesUnder(dir)).toEqual([]);
  });

  it('close() stops the background work and closes every file, once however often it is called', async () => {
    const server = await startServer({ dataDir: dir, port: 0 });
    const res = await fetch(`${server.url}/api/console/status`);
    expect(res.status).toBe(200);
    await Promise.all([server.close(), server.close()]);
    expect(openFilesUnder(dir)).toEqual([]);
    await expect(fetch(`${server.url}/api/console/status`)).rejects.toThrow();
  });
});
