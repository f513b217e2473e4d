import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import type { Database } from '../../db/database';
import { systemClock, type Clock } from '../../lib/clock';
import { errorMessage } from '../../lib/errors';
import { SettingsStore } from '../settings/settings-store';
import { formatAccountTable, shortUtc } from './account-table';
import { AdminAccounts, RESET_LINK_TTL_MS } from './accounts';
import { adminDatabaseTarget, openAdminDatabase, type AdminDatabaseTarget } from './admin-database';
import { AdminRefused } from './admin-refused';
import { linkBase, parseUrlOption, type LinkBase } from './link-base';

const WHERE = `Herald may be running or stopped. With HERALD_DATABASE_URL (or HERALD_DATABASE_URL_FILE)
set, it works on that PostgreSQL database instead of the data folder's SQLite file.`;

const ADMIN_USAGE = `Usage: herald admin <command> [options]
       (npm run admin -- <command> [options] from a checkout)
Commands:
  list            the accounts, with their roles and states
  reset-password  a one-time sign-in link for an account whose password is lost
Run \`herald admin <command> --help\` for its options.
${WHERE}
Both are recorded in the audit log as cli.`;

const LIST_USAGE = `Usage: herald admin list [--data-dir DIR] [--json]
       (npm run admin -- list from a checkout)
  --data-dir DIR  the data folder (HERALD_DATA_DIR, default ./data)
  --json          the accounts as a JSON array, for scripts
${WHERE}
Recorded in the audit log as cli (user.list).`;

const RESET_USAGE = `Usage: herald admin reset-password --user NAME [--data-dir DIR] [--url BASE] [--json]
       (npm run admin -- reset-password --user NAME from a checkout)
  --user NAME     the account (herald admin list shows them)
  --data-dir DIR  the data folder (HERALD_DATA_DIR, default ./data)
  --url BASE      the address people open Herald at (https://herald.example.com); default the
                  publicBaseUrl setting, else http://HERALD_HOST:HERALD_PORT (127.0.0.1:8765)
  --json          {username, role, url, expiresAt} as JSON, for scripts
Prints a one-time link, valid ${RESET_LINK_TTL_MS / 60_000} minutes: whoever opens it chooses the account's new password
and is signed in. No password is printed or set here: the current one keeps working until the
link is used.
${WHERE}
Recorded in the audit log as cli (user.reset-password).`;

/** What the command reads besides its arguments; tests and the bin pass the process's own. */
export interface AdminCliContext {
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
}

const COMMANDS: Record<
  string,
  (argv: string[], ctx: Required<AdminCliContext>) => Promise<number>
> = {
  list: runList,
  'reset-password': runResetPassword,
};

/** `herald admin …`: returns the exit code (0 done, 1 refused or failed, 2 a usage error). */
export async function runAdminCli(argv: string[], ctx: AdminCliContext = {}): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(ADMIN_USAGE);
    return 0;
  }
  const run = command === undefined ? undefined : COMMANDS[command];
  if (!run) {
    console.error(
      `${command === undefined ? 'herald admin: give a command' : `herald admin: unknown command "${command}"`}\n\n${ADMIN_USAGE}`,
    );
    return 2;
  }
  return run(rest, { env: ctx.env ?? process.env, clock: ctx.clock ?? systemClock });
}

type Parsed<T> = { values: T } | 'help' | 'usage error';

/** The subcommand's options, or its usage printed (on stdout for --help, else on stderr). */
function parseOptions<T>(
  argv: string[],
  usage: string,
  parse: (argv: string[]) => T & { help?: boolean },
): Parsed<T> {
  let values;
  try {
    values = parse(argv);
  } catch (err) {
    console.error(`${errorMessage(err)}\n\n${usage}`);
    return 'usage error';
  }
  if (values.help) {
    console.log(usage);
    return 'help';
  }
  return { values };
}

const exitOf = (parsed: 'help' | 'usage error') => (parsed === 'help' ? 0 : 2);

async function runList(argv: string[], ctx: Required<AdminCliContext>): Promise<number> {
  const parsed = parseOptions(argv, LIST_USAGE, (args) => {
    const { values } = parseArgs({
      args,
      options: {
        'data-dir': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    return values;
  });
  if (typeof parsed === 'string') return exitOf(parsed);
  const { values } = parsed;
  return withDatabase(values['data-dir'], ctx, async (db) => {
    const accounts = await new AdminAccounts(db, ctx.clock).list();
    console.log(
      values.json
        ? JSON.stringify(accounts, null, 2)
        : formatAccountTable(accounts, ctx.clock.now()),
    );
    return 0;
  });
}

async function runResetPassword(argv: string[], ctx: Required<AdminCliContext>): Promise<number> {
  const parsed = parseOptions(argv, RESET_USAGE, (args) => {
    const { values } = parseArgs({
      args,
      options: {
        user: { type: 'string' },
        'data-dir': { type: 'string' },
        url: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    if (!values.help && !values.user?.trim()) {
      throw new Error('give --user NAME: the account whose password was lost');
    }
    return { ...values, url: values.url === undefined ? undefined : parseUrlOption(values.url) };
  });
  if (typeof parsed === 'string') return exitOf(parsed);
  const { values } = parsed;
  return withDatabase(values['data-dir'], ctx, async (db) => {
    const settings = await new SettingsStore(db.writer).read();
    // Before anything is written: a bad HERALD_PORT refuses with no link left behind.
    const base = linkBase(values.url, settings.publicBaseUrl, ctx.env);
    const reset = await new AdminAccounts(db, ctx.clock).resetLink(values.user!.trim());
    const url = `${base.url}/invite?token=${reset.token}`;
    const { account, expiresAt } = reset;
    if (values.json) {
      console.log(
        JSON.stringify(
          {
            username: account.username,
            role: account.role,
            url,
            expiresAt: expiresAt.toISOString(),
          },
          null,
          2,
        ),
      );
    } else {
      console.log(resetText(account.username, account.role, account.twoFactor, url, expiresAt));
    }
    const note = baseNote(base);
    if (note) console.error(note);
    return 0;
  });
}

function resetText(
  username: string,
  role: string,
  twoFactor: boolean,
  url: string,
  expiresAt: Date,
): string {
  const lines = [
    `A one-time sign-in link for ${username} (${role}), valid ${RESET_LINK_TTL_MS / 60_000} minutes ` +
      `(until ${shortUtc(expiresAt.toISOString())}):`,
    '',
    `  ${url}`,
    '',
    'Open it in a browser and choose a new password: it signs in, then stops working.',
    'Until it is used the current password keeps working; a newer link replaces this one.',
  ];
  if (twoFactor) {
    lines.push(
      `${username} has two-factor sign-in: the link signs in once without a code; the next sign-ins ask for one.`,
    );
  }
  lines.push(
    'Anyone with the link can take over the account until it is used or expires: hand it over privately.',
  );
  return lines.join('\n');
}

/** Where the link's address came from, when it is a guess worth checking. */
function baseNote(base: LinkBase): string | null {
  if (base.origin !== 'listen address') return null;
  return (
    `The link starts with the address Herald listens on by HERALD_HOST and HERALD_PORT (${base.url}). ` +
    'If people open Herald at another address (a reverse proxy, other flags), give --url, ' +
    'or set publicBaseUrl in Settings.'
  );
}

/** Opens the database the command works on, runs `work`, closes it; refusals exit 1. */
async function withDatabase(
  dataDirOption: string | undefined,
  ctx: Required<AdminCliContext>,
  work: (db: Database) => Promise<number>,
): Promise<number> {
  let db: Database | undefined;
  try {
    const target: AdminDatabaseTarget = adminDatabaseTarget(
      resolve(dataDirOption ?? ctx.env.HERALD_DATA_DIR ?? 'data'),
      ctx.env,
    );
    db = await openAdminDatabase(target);
    return await work(db);
  } catch (err) {
    console.error(
      err instanceof AdminRefused
        ? `herald admin: ${err.message}`
        : `herald admin failed: ${errorMessage(err)}`,
    );
    return 1;
  } finally {
    await db?.close();
  }
}
