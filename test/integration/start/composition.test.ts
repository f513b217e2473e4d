import { mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
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
    // The administrator is created after the database is open and migrated.
    process.env.HERALD_ADMIN_USER = 'admin';
    process.env.HERALD_ADMIN_PASSWORD = 'short';
    await expect(startServer({ dataDir: dir, port: 0, startDispatcher: false })).rejects.toThrow(
      'HERALD_ADMIN_PASSWORD must be at least 8 characters',
    );
    expect(openFilesUnder(dir)).toEqual([]);

    process.env.HERALD_ADMIN_PASSWORD = 'x'.repeat(201);
    await expect(startServer({ dataDir: dir, port: 0, startDispatcher: false })).rejects.toThrow(
      'HERALD_ADMIN_PASSWORD must be at most 200 characters',
    );
    expect(openFilesUnder(dir)).toEqual([]);

    process.env.HERALD_ADMIN_PASSWORD = 'long enough now';
    const server = await startServer({ dataDir: dir, port: 0, startDispatcher: false });
    try {
      expect(openFilesUnder(dir).some((f) => f.endsWith('herald.db'))).toBe(true);
      expect(server.setupCode()).toBeNull();
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
