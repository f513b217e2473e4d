import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { heraldArgs } from '../../helpers/herald-bin';
import { onPostgres, POSTGRES_ADMIN_URL } from '../../helpers/test-database';

/**
 * A setting Herald refuses stops the start before anything is written into the data folder
 * (issue 42 §11): the real headless bin in a process of its own, on a folder that does not exist
 * yet and on an empty one, exits 1 with a message naming the setting, and the folder is as it was.
 */

/**
 * Runs `herald --data-dir DIR --port 0 ARGS` with `env` over an environment without HERALD_*
 * variables, to its exit; a Herald that starts serving is stopped (SIGTERM) at once.
 */
async function runHerald(
  dataDir: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number | null; output: string }> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('HERALD_')),
  );
  const child = spawn(
    process.execPath,
    heraldArgs(['--data-dir', dataDir, '--port', '0', ...args]),
    { env: { ...clean, HERALD_LOG: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const read = (c: Buffer) => {
    output += c.toString();
    if (output.includes('Herald is running at') && !child.killed) child.kill('SIGTERM');
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}

interface Refusal {
  what: string;
  env: Record<string, string>;
  args?: string[];
  /** What the message must say: the setting's name, and why. */
  says: RegExp;
  /**
   * Refused while the folder is being opened (after it was made), not with the other settings
   * before anything is touched: the ones an existing empty folder can tell apart.
   */
  whileOpening?: true;
}

const ADMIN_USER = { HERALD_ADMIN_USER: 'admin' };

const refusals: Refusal[] = [
  {
    what: 'an administrator password too short',
    env: { ...ADMIN_USER, HERALD_ADMIN_PASSWORD: 'short' },
    says: /HERALD_ADMIN_PASSWORD must be at least 8 characters/,
  },
  {
    what: 'an administrator password too long, from its file',
    env: { ...ADMIN_USER, HERALD_ADMIN_PASSWORD_FILE: 'FILE:admin-password' },
    says: /HERALD_ADMIN_PASSWORD_FILE must be at most 200 characters/,
  },
  {
    what: 'an administrator name too long',
    env: { HERALD_ADMIN_USER: 'a'.repeat(101), HERALD_ADMIN_PASSWORD: 'long enough now' },
    says: /HERALD_ADMIN_USER must be 1 to 100 characters/,
  },
  {
    what: 'a key file that cannot be read',
    env: { HERALD_SECRET_KEY_FILE: 'FILE:no-such-key' },
    says: /HERALD_SECRET_KEY_FILE \(.*no-such-key\) cannot be read \(ENOENT\)/,
    whileOpening: true,
  },
  {
    what: 'a PostgreSQL database that does not exist',
    env: { HERALD_DATABASE_URL: 'DATABASE:herald_docs_refused_missing' },
    says: /cannot reach the PostgreSQL database .*herald_docs_refused_missing \(HERALD_DATABASE_URL\)/,
    whileOpening: true,
  },
  {
    what: 'an unknown write-worker mode',
    env: { HERALD_WRITE_WORKER: 'sometimes' },
    says: /HERALD_WRITE_WORKER must be auto, on, always or off, not "sometimes"/,
  },
  {
    what: 'an origin that is not one',
    env: {},
    args: ['--cors-origins', 'not-an-origin'],
    says: /--cors-origins: "not-an-origin" is not a web origin/,
  },
];

// The processes here choose their own databases (none, or a missing one): the PostgreSQL pass
// would run the same starts again.
describe.skipIf(onPostgres())('a refused setting leaves the data folder as it was', () => {
  let dir: string;
  let secrets: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'herald-refused-'));
    secrets = join(dir, 'secrets');
    mkdirSync(secrets);
    writeFileSync(join(secrets, 'admin-password'), `${'x'.repeat(201)}\n`, { mode: 0o600 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The test's stand-ins: FILE:name is a file in the secrets folder, DATABASE:name a database. */
  const resolved = (env: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(env).map(([name, value]) => [
        name,
        value.startsWith('FILE:')
          ? join(secrets, value.slice(5))
          : value.startsWith('DATABASE:')
            ? Object.assign(new URL(POSTGRES_ADMIN_URL), { pathname: `/${value.slice(9)}` }).href
            : value,
      ]),
    );

  it.each(refusals)(
    '$what: not created when it did not exist',
    async ({ env, args, says }) => {
      const parent = mkdtempSync(join(dir, 'new-'));
      // Two levels that do not exist: neither may be left behind.
      const dataDir = join(parent, 'herald', 'data');
      const { code, output } = await runHerald(dataDir, resolved(env), args);
      expect(code, output).toBe(1);
      expect(output).toMatch(says);
      expect(output).not.toMatch(/Herald is running at/);
      expect(readdirSync(parent)).toEqual([]);
    },
    30_000,
  );

  // Refused with the other settings, an empty folder takes the same path as a missing one (the
  // first refusal stands for them); refused while opening, it is the folder made or kept.
  it.each([refusals[0], ...refusals.filter((refusal) => refusal.whileOpening)])(
    '$what: an empty folder stays empty',
    async ({ env, args, says }) => {
      const dataDir = mkdtempSync(join(dir, 'empty-'));
      const { code, output } = await runHerald(dataDir, resolved(env), args);
      expect(code, output).toBe(1);
      expect(output).toMatch(says);
      expect(existsSync(dataDir)).toBe(true);
      expect(readdirSync(dataDir)).toEqual([]);
    },
    30_000,
  );

  it('with the settings put right, the same start runs and writes its folder', async () => {
    const dataDir = join(mkdtempSync(join(dir, 'right-')), 'herald', 'data');
    const { code, output } = await runHerald(dataDir, {
      ...ADMIN_USER,
      HERALD_ADMIN_PASSWORD: 'long enough now',
    });
    expect(output).toMatch(/Herald is running at/);
    expect(code, output).toBe(0); // stopped by SIGTERM, in order
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(['herald.db', 'secret.key']));
  }, 30_000);
});
