#!/usr/bin/env node
/**
 * Entry of the production bundle out/server/cli.js (scripts/build-server.mjs) and the `herald`
 * bin: `herald [start] [--port N] [--data-dir DIR] [--host ADDR]` runs Herald headless (the
 * default with no subcommand), `herald send …` sends one message over HTTP (cli/send.ts).
 * Each subcommand is imported when it runs, so `send` never loads the server's code (the
 * bundle puts it in a chunk of its own). server/cli.ts stays the headless module (and the
 * entry under tsx).
 */
const HELP = `Usage: herald [command] [options]

Commands:
  start   run Herald headless (the default when no command is given):
          herald start [--data-dir DIR] [--port N] [--host ADDR]
                       [--allowed-hosts NAMES] [--cors-origins ORIGINS]
  send    send one message through Herald's send API:
          herald send --token T --title TITLE [--text TEXT | stdin] [-p key=value ...]

Run \`herald start --help\` or \`herald send --help\` for a command's options.
`;

const fail = (err: unknown): never => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
};

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'send') {
    const { runSend } = await import('../cli/send');
    process.exitCode = await runSend(rest, {
      env: process.env,
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
    });
    return;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (command === undefined || command === 'start' || command.startsWith('-')) {
    const { runHeadless } = await import('./cli');
    await runHeadless(command === 'start' ? rest : argv);
    return;
  }
  process.stderr.write(`herald: unknown command "${command}"\n\n${HELP}`);
  process.exitCode = 2;
}

main(process.argv.slice(2)).catch(fail);
