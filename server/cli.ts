import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { errorMessage } from './lib/errors';
import { announce, logToFileFromEnv } from './lib/logger';
import {
  DEFAULT_HOST,
  DEFAULT_PORT,
  DataDirLockedError,
  PortInUseError,
  startServer,
} from './index';

export interface HeadlessOptions {
  host: string;
  port: number;
  dataDir: string;
  /** --allowed-hosts; absent, startServer reads HERALD_ALLOWED_HOSTS. */
  allowedHosts?: string[];
  /** --cors-origins; absent, startServer reads HERALD_CORS_ORIGINS. */
  corsOrigins?: string[];
}

const listFlag = (value: string | undefined): string[] | undefined =>
  value === undefined ? undefined : value.split(',');

/** Flags win over HERALD_* variables, which win over the defaults. */
export function parseHeadlessOptions(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): HeadlessOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'allowed-hosts': { type: 'string' },
      'cors-origins': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
    strict: true,
  });
  if (values.help) {
    console.log(
      'Usage: herald [start] [--data-dir DIR] [--port N] [--host ADDR] [--allowed-hosts NAMES] [--cors-origins ORIGINS]\n' +
        '       (npm start -- [options] from a checkout)\n' +
        `  --data-dir  data folder (HERALD_DATA_DIR, default ./data)\n` +
        `  --port      port (HERALD_PORT, default ${DEFAULT_PORT})\n` +
        `  --host      address to listen on (HERALD_HOST, default ${DEFAULT_HOST}; 0.0.0.0 opens Herald to the LAN)\n` +
        `  --allowed-hosts  other names Herald answers to, comma-separated (HERALD_ALLOWED_HOSTS)\n` +
        `  --cors-origins   web origins allowed to call the send APIs (HERALD_CORS_ORIGINS)`,
    );
    process.exit(0);
  }
  const portText = values.port ?? env.HERALD_PORT ?? String(DEFAULT_PORT);
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`port must be a number from 0 to 65535, not "${portText}"`);
  }
  return {
    host: values.host ?? env.HERALD_HOST ?? DEFAULT_HOST,
    port,
    dataDir: resolve(values['data-dir'] ?? env.HERALD_DATA_DIR ?? 'data'),
    allowedHosts: listFlag(values['allowed-hosts']),
    corsOrigins: listFlag(values['cors-origins']),
  };
}

/**
 * What a first start prints: the one-time code that proves the administrator is created by
 * someone who can see this terminal, and the link that fills it in.
 */
export function setupBanner(url: string, setupCode: string): string {
  return [
    '',
    '  No administrator yet. Create one in the console:',
    `    ${url}/sign-in?code=${setupCode}`,
    `  or enter the one-time setup code: ${setupCode}`,
    '  (Or start Herald with HERALD_ADMIN_USER and HERALD_ADMIN_PASSWORD set.)',
    '',
  ].join('\n');
}

/**
 * The same, as one line with the code and the link as fields, for the JSON log format: so every
 * line a container prints is a record, and `grep -o 'setup code: [^ ]*'` finds the code in both.
 */
export function setupRecord(
  url: string,
  setupCode: string,
): {
  msg: string;
  fields: Record<string, string>;
} {
  const setupUrl = `${url}/sign-in?code=${setupCode}`;
  return {
    msg:
      `No administrator yet: create one in the console at ${setupUrl} or enter the one-time ` +
      `setup code: ${setupCode} (or start Herald with HERALD_ADMIN_USER and HERALD_ADMIN_PASSWORD set)`,
    fields: { setupUrl, setupCode },
  };
}

const say = (
  level: 'info' | 'error',
  msg: string,
  fields?: Record<string, unknown>,
  text?: string,
) => announce('server', level, msg, fields, text);

/** Runs Herald without Electron: the server and console at the printed URL, until SIGINT/SIGTERM. */
export async function runHeadless(argv: string[]): Promise<void> {
  const logFile = logToFileFromEnv();
  try {
    await startHeadless(argv);
  } catch (err) {
    // What the bin then prints on stderr (server/bin.ts), so the file says why a start failed.
    logFile?.write(errorMessage(err));
    throw err;
  }
}

async function startHeadless(argv: string[]): Promise<void> {
  const options = parseHeadlessOptions(argv);
  // Listened for before the start: Herald answers HTTP before its start has finished (the
  // dispatcher, the scheduler and the jobs start after the listen), and a SIGTERM from a
  // service manager or a script that saw it answer must still stop it cleanly, not kill it.
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let stopping = false;
  const closeAndExit = (running: NonNullable<typeof server>) => {
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        say('error', `stopping Herald failed: ${errorMessage(err)}`, { err });
        process.exit(1);
      },
    );
  };
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    say('info', `${signal} received: stopping Herald…`, { signal });
    // Mid-start: the start finishes first, then closes what it opened (below).
    if (server) closeAndExit(server);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    server = await startServer(options);
  } catch (err) {
    if (err instanceof PortInUseError || err instanceof DataDirLockedError) {
      say('error', err.message);
      process.exit(1);
    }
    throw err;
  }
  if (stopping) {
    closeAndExit(server);
    return;
  }
  say('info', `Herald is running at ${server.url} (data: ${options.dataDir})`, {
    url: server.url,
    dataDir: options.dataDir,
  });
  const setupCode = server.setupCode();
  if (setupCode) {
    const { msg, fields } = setupRecord(server.url, setupCode);
    say('info', msg, fields, setupBanner(server.url, setupCode));
  }
  if (options.host !== '127.0.0.1' && options.host !== 'localhost' && options.host !== '::1') {
    say(
      'info',
      `Listening on ${options.host}: other machines on the network can reach the console and the send APIs ` +
        `(by address; add the host names they use to HERALD_ALLOWED_HOSTS).`,
    );
  }
}

const isMain =
  process.argv[1] !== undefined &&
  import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href;
if (isMain) {
  runHeadless(process.argv.slice(2)).catch((err: unknown) => {
    say('error', errorMessage(err), { err });
    process.exit(1);
  });
}
