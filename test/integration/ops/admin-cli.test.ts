import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { ADMIN, ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { heraldArgs } from '../../helpers/herald-bin';
import { freePort } from '../../helpers/herald-process';
import { ManualClock } from '../../helpers/manual-clock';
import { runNodeToExit, type ProcessResult } from '../../helpers/run-to-exit';
import {
  createTestDatabase,
  dropTestDatabase,
  keptDatabases,
  onPostgres,
} from '../../helpers/test-database';

/* eslint-disable @typescript-eslint/no-explicit-any -- the console's JSON answers */

/**
 * `herald admin` (issue 42 §6): the real bin in its own process, on a stopped data folder and
 * beside a running Herald, on SQLite and (HERALD_TEST_DATABASE=postgres) on PostgreSQL through
 * HERALD_DATABASE_URL. The link it prints is followed over HTTP to a new password; the invite
 * mechanism under it is tested in console-users.test.ts, so here only what the reset changes:
 * 30 minutes, once, the current password kept until then, and the audit entries. The doc's
 * example (docs/running-for-a-team.md, "A lost admin password") runs in doc-examples.test.ts.
 */

const ROOT = join(import.meta.dirname, '..', '..', '..');
const MINUTE = 60_000;

/** Runs `node <args>` with none of the test run's HERALD_* variables that say where Herald is. */
function runNode(args: string[], env: Record<string, string>): Promise<ProcessResult> {
  const base = { ...process.env };
  for (const name of [
    'HERALD_DATA_DIR',
    'HERALD_DATABASE_URL',
    'HERALD_DATABASE_URL_FILE',
    'HERALD_HOST',
    'HERALD_PORT',
  ]) {
    delete base[name];
  }
  return runNodeToExit(args, { cwd: ROOT, env: { ...base, ...env } });
}

/** `herald admin <args>` on a data folder, and on PostgreSQL on the folder's database. */
function admin(dataDir: string | null, args: string[], env: Record<string, string> = {}) {
  const database = dataDir === null ? undefined : keptDatabases.get(dataDir);
  return runNode(heraldArgs(['admin', ...args, ...(dataDir ? ['--data-dir', dataDir] : [])]), {
    ...(database ? { HERALD_DATABASE_URL: database.url } : {}),
    ...env,
  });
}

/** The one link the output holds. */
function linkIn(stdout: string): URL {
  const links = stdout.match(/https?:\/\/\S+\/invite\?token=[\w-]+/g) ?? [];
  expect(links).toHaveLength(1);
  return new URL(links[0] ?? 'no link');
}

const tokenOf = (link: URL) => link.searchParams.get('token')!;

/** The table `herald admin list` prints, as rows of cells. */
const tableOf = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => line.split(/ {2,}/));

async function signIn(url: string, username: string, password: string) {
  return new ConsoleClient(url).post('/login', { username, password });
}

async function cliEntries(console: ConsoleClient): Promise<any[]> {
  return (await console.ok('GET', '/audit?user=cli&pageSize=100')).items;
}

let herald: TestHerald | undefined;
const folders: string[] = [];

afterEach(async () => {
  await herald?.close();
  herald = undefined;
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('herald admin', () => {
  it('prints its usage and each command’s; an unknown command or a missing --user is a usage error', async () => {
    // Each its own process, all at once: a usage answer opens no database.
    const [help, list, reset, unknown, none, noUser, badUrl, badOption] = await Promise.all([
      admin(null, ['--help']),
      admin(null, ['list', '--help']),
      admin(null, ['reset-password', '-h']),
      admin(null, ['reset-pasword', '--user', 'admin']),
      admin(null, []),
      admin(null, ['reset-password']),
      admin(null, ['reset-password', '--user', 'a', '--url', 'ftp://x']),
      admin(null, ['list', '--everything']),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: herald admin <command>');
    expect(help.stdout).toMatch(/list\s+the accounts/);
    expect(help.stdout).toMatch(/reset-password\s+a one-time sign-in link/);

    expect([list.code, list.stdout]).toEqual([0, expect.stringContaining('herald admin list')]);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain('--user NAME');
    expect(reset.stdout).toContain('--url BASE');
    expect(reset.stdout).toContain('valid 30 minutes');

    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "reset-pasword"');
    expect(unknown.stderr).toContain('Usage: herald admin <command>');
    expect(none.code).toBe(2);
    expect([noUser.code, noUser.stderr]).toEqual([2, expect.stringContaining('give --user NAME')]);
    expect([badUrl.code, badUrl.stderr]).toEqual([2, expect.stringContaining('--url must be')]);
    expect(badOption.code).toBe(2);

    // `npm run admin -- …` is scripts/herald.mjs, which runs the same bundle.
    const npm = await runNode([join(ROOT, 'scripts', 'herald.mjs'), 'admin', 'list', '--help'], {});
    expect(npm.code).toBe(0);
    expect(npm.stdout).toContain('Usage: herald admin list');
  }, 60_000);

  it('a stopped folder: lists the accounts, and its link at the listen address sets a new password once', async () => {
    herald = await startTestHerald({ startDispatcher: false });
    const { dataDir } = herald;
    await herald.console.ok('POST', '/users', {
      username: 'bob',
      role: 'editor',
      password: 'bob password',
    });
    const carol = await herald.console.ok('POST', '/users', { username: 'carol', role: 'viewer' });
    await herald.console.ok('PATCH', `/users/${carol.id}`, { disabled: true });
    await herald.close();
    herald = undefined;
    expect(existsSync(join(dataDir, 'herald.lock'))).toBe(false);

    const listed = await admin(dataDir, ['list']);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    const rows = tableOf(listed.stdout);
    expect(rows[0]).toEqual(['NAME', 'ROLE', 'STATE', 'TWO-FACTOR', 'CREATED']);
    expect(rows.slice(1).map((r) => r.slice(0, 4))).toEqual([
      ['admin', 'admin', 'active', 'off'],
      ['bob', 'editor', 'active', 'off'],
      // Invited and then disabled: the invite's link does not work for a disabled account.
      ['carol', 'viewer', 'disabled', 'off'],
    ]);
    // The columns line up: every row's role starts where the header's does.
    const roleAt = listed.stdout.split('\n')[0].indexOf('ROLE');
    for (const line of listed.stdout.trim().split('\n').slice(1)) {
      expect(line.slice(roleAt)).toMatch(/^(admin|editor|viewer) /);
    }
    const json = await admin(dataDir, ['list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ username: 'admin', role: 'admin', disabled: false }),
      expect.objectContaining({ username: 'bob', role: 'editor', passwordSet: true }),
      expect.objectContaining({ username: 'carol', disabled: true, passwordSet: false }),
    ]);

    const port = await freePort();
    const startedAt = Date.now();
    const reset = await admin(dataDir, ['reset-password', '--user', 'admin'], {
      HERALD_PORT: String(port),
    });
    expect(reset.code).toBe(0);
    const link = linkIn(reset.stdout);
    expect(link.origin).toBe(`http://127.0.0.1:${port}`);
    expect(link.pathname).toBe('/invite');
    expect(reset.stdout).toContain('A one-time sign-in link for admin (admin), valid 30 minutes');
    // The link alone on its line, set apart, to be copied.
    expect(reset.stdout).toMatch(/\):\n\n {2}http:\/\/\S+\n\n/);
    expect(reset.stdout).not.toContain(ADMIN.password);
    // Said where the address came from, on stderr (stdout is the link and what to do with it).
    expect(reset.stderr).toContain('HERALD_HOST and HERALD_PORT');
    // Nothing of a running Herald's was taken: no lock left, no WAL kept open.
    expect(readdirSync(dataDir).filter((f) => f === 'herald.lock')).toEqual([]);

    herald = await startTestHerald({ dataDir, port, setup: false, startDispatcher: false });
    expect(herald.url).toBe(link.origin);
    // The password was not touched: it works until the link is used.
    const withOldPassword = new ConsoleClient(herald.url);
    expect(
      (await withOldPassword.post('/login', { username: 'admin', password: ADMIN.password }))
        .status,
    ).toBe(200);
    expect((await withOldPassword.get('/me')).status).toBe(200);

    const browser = new ConsoleClient(link.origin);
    const invite = await browser.get(`/invite?token=${tokenOf(link)}`);
    expect(invite.body.data).toEqual({ username: 'admin', role: 'admin' });
    const accepted = await browser.post('/invite', {
      token: tokenOf(link),
      password: 'a fresh admin password',
    });
    expect(accepted.status).toBe(200);
    expect((await browser.get('/me')).body.data.user).toMatchObject({ username: 'admin' });
    // Whoever signed in with the old password is signed out: it may be the one who learned it.
    expect((await withOldPassword.get('/me')).status).toBe(401);
    expect((await signIn(herald.url, 'admin', 'a fresh admin password')).status).toBe(200);
    expect((await signIn(herald.url, 'admin', ADMIN.password)).status).toBe(401);
    // Once only.
    const again = await new ConsoleClient(herald.url).post('/invite', {
      token: tokenOf(link),
      password: 'someone else’s password',
    });
    expect(again.status).toBe(404);

    const entries = await cliEntries(browser);
    const byAction = (action: string) => entries.filter((e) => e.action === action);
    expect(byAction('user.list')).toHaveLength(2);
    const [resetEntry] = byAction('user.reset-password');
    expect(resetEntry).toMatchObject({
      userId: null,
      username: 'cli',
      ip: null,
      targetType: 'user',
      targetName: 'admin',
    });
    const [change] = resetEntry.changes;
    expect(change.field).toBe('linkExpiresAt');
    const expiresAt = Date.parse(change.after);
    expect(expiresAt).toBeGreaterThanOrEqual(startedAt + 30 * MINUTE);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * MINUTE);
    // What the console's audit page reads the entry with: "The command line made a password
    // reset link for admin" (test/renderer/audit-sentence.test.ts covers every action's sentence).
    const accept = (await browser.ok('GET', '/audit?action=user.accept-invite')).items;
    expect(accept.map((e: any) => e.username)).toEqual(['admin']);
  }, 120_000);

  it('beside a running Herald: the link starts with publicBaseUrl (or --url), lasts 30 minutes, and a refused account gets none', async () => {
    const clock = new ManualClock(Date.now());
    herald = await startTestHerald({
      clock,
      startDispatcher: false,
      settings: { publicBaseUrl: 'https://herald.example.com' },
    });
    const { dataDir } = herald;
    const lockBefore = readFileSync(join(dataDir, 'herald.lock'), 'utf8');
    const bob = await herald.console.ok('POST', '/users', {
      username: 'bob',
      role: 'editor',
      password: 'bob password',
    });

    const listed = await admin(dataDir, ['list']);
    expect(listed.code).toBe(0);
    expect(tableOf(listed.stdout).map((r) => r[0])).toEqual(['NAME', 'admin', 'bob']);

    const first = await admin(dataDir, ['reset-password', '--user', 'bob', '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const printed = JSON.parse(first.stdout);
    expect(printed).toMatchObject({ username: 'bob', role: 'editor' });
    const link = new URL(printed.url);
    expect(link.origin).toBe('https://herald.example.com');
    const expiresAt = Date.parse(printed.expiresAt);
    expect(Math.abs(expiresAt - (Date.now() + 30 * MINUTE))).toBeLessThan(MINUTE);
    // The running Herald sees the link at once, and its Users page the expiry.
    const users = (await herald.console.ok('GET', '/users')).items;
    expect(users.find((u: any) => u.id === bob.id)).toMatchObject({
      invited: true,
      inviteExpiresAt: printed.expiresAt,
    });
    expect(readFileSync(join(dataDir, 'herald.lock'), 'utf8')).toBe(lockBefore);

    // The proxy's address stands for this Herald's: the same path and token on it.
    const anon = new ConsoleClient(herald.url);
    clock.set(expiresAt - MINUTE);
    expect((await anon.get(`/invite?token=${tokenOf(link)}`)).body.data.username).toBe('bob');
    clock.set(expiresAt + 1000);
    expect((await anon.get(`/invite?token=${tokenOf(link)}`)).status).toBe(404);
    expect(
      (await anon.post('/invite', { token: tokenOf(link), password: 'too late now' })).status,
    ).toBe(404);
    expect((await signIn(herald.url, 'bob', 'bob password')).status).toBe(200);

    clock.set(Date.now());
    const second = await admin(dataDir, [
      'reset-password',
      '--user',
      'bob',
      '--url',
      `${herald.url}/`,
    ]);
    expect(second.code).toBe(0);
    const link2 = linkIn(second.stdout);
    expect(`${link2.origin}${link2.pathname}`).toBe(`${herald.url}/invite`);
    expect(tokenOf(link2)).not.toBe(tokenOf(link));
    const browser = new ConsoleClient(link2.origin);
    expect(
      (await browser.post('/invite', { token: tokenOf(link2), password: 'bob’s new password' }))
        .status,
    ).toBe(200);
    expect((await signIn(herald.url, 'bob', 'bob’s new password')).status).toBe(200);

    // Refused: no such account (the known ones are named), a disabled one; neither is recorded.
    const unknown = await admin(dataDir, ['reset-password', '--user', 'robert']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      'there is no account named "robert"; the accounts are: admin, bob',
    );
    expect(unknown.stdout).toBe('');
    await herald.console.ok('PATCH', `/users/${bob.id}`, { disabled: true });
    const disabled = await admin(dataDir, ['reset-password', '--user', 'bob']);
    expect(disabled.code).toBe(1);
    expect(disabled.stderr).toContain('the account bob is disabled');
    expect(disabled.stdout).toBe('');
    const after = (await herald.console.ok('GET', '/users')).items.find(
      (u: any) => u.id === bob.id,
    );
    expect(after.invited).toBe(false);

    const entries = await cliEntries(herald.console);
    expect(entries.map((e) => [e.action, e.targetName])).toEqual([
      ['user.reset-password', 'bob'],
      ['user.reset-password', 'bob'],
      ['user.list', null],
    ]);
  }, 120_000);

  it('refuses a folder or database without Herald in it, and creates nothing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'herald-admin-empty-'));
    folders.push(empty);
    if (!onPostgres()) {
      const run = await admin(empty, ['list']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`there is no Herald database at ${join(empty, 'herald.db')}`);
      expect(readdirSync(empty)).toEqual([]);
      return;
    }
    const database = await createTestDatabase();
    try {
      const run = await admin(empty, ['reset-password', '--user', 'admin'], {
        HERALD_DATABASE_URL: database.url,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('holds no Herald database yet');
      expect(run.stdout).toBe('');
    } finally {
      await dropTestDatabase(database.name);
    }
  }, 120_000);
});
