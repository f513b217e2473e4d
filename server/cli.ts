import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

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
}

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
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
    strict: true,
  });
  if (values.help) {
    console.log(
      'Usage: npm start -- [--data-dir DIR] [--port N] [--host ADDR]\n' +
        `  --data-dir  data folder (HERALD_DATA_DIR, default ./data)\n` +
        `  --port      port (HERALD_PORT, default ${DEFAULT_PORT})\n` +
        `  --host      address to listen on (HERALD_HOST, default ${DEFAULT_HOST}; 0.0.0.0 opens Herald to the LAN)`,
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
  };
}

/** Runs Herald without Electron: the server and console at the printed URL, until SIGINT/SIGTERM. */
export async function runHeadless(argv: string[]): Promise<void> {
  const options = parseHeadlessOptions(argv);
  let server;
  try {
    server = await startServer(options);
  } catch (err) {
    if (err instanceof PortInUseError || err instanceof DataDirLockedError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  console.log(`Herald is running at ${server.url} (data: ${options.dataDir})`);
  if (options.host !== '127.0.0.1' && options.host !== 'localhost' && options.host !== '::1') {
    console.log(
      `Listening on ${options.host}: other machines on the network can reach the console and the send APIs.`,
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: stopping Herald…`);
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

const isMain =
  process.argv[1] !== undefined &&
  import.meta.url === new URL(`file://${resolve(process.argv[1])}`).href;
if (isMain) {
  runHeadless(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
