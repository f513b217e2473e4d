import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DB_FILE } from '../../../server/data-dir/permissions';
import { freePort, startHeraldProcess, type HeraldProcess } from '../../helpers/herald-process';
import { ConsoleClient } from '../../helpers/herald';
import { createTestDatabase, dropTestDatabase } from '../../helpers/test-database';

const PASSWORD = 'from a mounted secret, spaces kept';

/**
 * The headless Herald in a process of its own, given its admin password and its PostgreSQL URL
 * only as files (HERALD_ADMIN_PASSWORD_FILE, HERALD_DATABASE_URL_FILE), as Docker and
 * Kubernetes secrets are mounted; the variables themselves are left empty.
 */
describe('secrets given as files', () => {
  let dir: string;
  let database: { name: string; url: string };
  let herald: HeraldProcess | undefined;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-secret-files-'));
    database = await createTestDatabase();
    const secrets = join(dir, 'secrets');
    const dataDir = join(dir, 'data');
    mkdirSync(secrets, { mode: 0o700 });
    writeFileSync(join(secrets, 'admin-password'), `${PASSWORD}\n`, { mode: 0o600 });
    writeFileSync(join(secrets, 'database-url'), `${database.url}\n`, { mode: 0o600 });
    const port = await freePort();
    herald = await startHeraldProcess(dataDir, port, {
      HERALD_ADMIN_USER: 'boss',
      HERALD_ADMIN_PASSWORD: '',
      HERALD_ADMIN_PASSWORD_FILE: join(secrets, 'admin-password'),
      HERALD_DATABASE_URL: '',
      HERALD_DATABASE_URL_FILE: join(secrets, 'database-url'),
    });
    url = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    if (herald && herald.child.exitCode === null) {
      herald.child.kill('SIGTERM');
      await herald.exit;
    }
    await dropTestDatabase(database.name);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the administrator signs in with the password the file holds (its line end taken off)', async () => {
    const client = new ConsoleClient(url);
    const wrong = await client.post('/login', { username: 'boss', password: `${PASSWORD}\n` });
    expect(wrong.body.code).toBe(401);
    const signedIn = await client.ok('POST', '/login', { username: 'boss', password: PASSWORD });
    expect(signedIn.user).toMatchObject({ username: 'boss', role: 'admin' });
    expect((await client.get('/status')).body.data).toMatchObject({ setupRequired: false });
  });

  it('runs on the PostgreSQL database the URL file names, not on SQLite', async () => {
    expect(existsSync(join(dir, 'data', DB_FILE))).toBe(false);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ username: string }>('SELECT username FROM users');
      expect(rows.map((r) => r.username)).toEqual(['boss']);
    } finally {
      await client.end();
    }
    expect(herald!.output()).not.toContain(PASSWORD);
  });
});
