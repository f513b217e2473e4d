/**
 * `herald` as the desktop app installs it ("Install command-line tool", main/cli-install.ts):
 * `herald send` alone, bundled into one file (out/cli/herald.mjs, scripts/build-main.ts) that
 * any Node 20 runs. The server's subcommands need the server's packages and native modules,
 * which the desktop app holds built for Electron, not for the `node` on the user's PATH; they
 * come with the server install (`npm install -g .`, README).
 */
import { runSend } from './send';

const HELP = `Usage: herald send [options]   (herald send --help for the options)

This herald was installed by the Herald desktop app and sends messages only.
herald start, import-message-nest, migrate-to-postgres, backup and restore come
with the server install (npm install -g . in a Herald checkout; see the README).
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'send') {
    return runSend(rest, {
      env: process.env,
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
    });
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(`herald: "${command}" is not a command of this herald\n\n${HELP}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`herald: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
