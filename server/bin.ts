#!/usr/bin/env node
/**
 * Entry of the production bundle out/server/cli.js (scripts/build-server.mjs) and the `herald`
 * bin: `herald [start] [--port N] [--data-dir DIR] [--host ADDR]` runs Herald headless (the
 * default with no subcommand), `herald send …` sends one message over HTTP (cli/send.ts), and
 * the one-off jobs (`import-message-nest`, `migrate-to-postgres`, `backup`, `restore`) run from
 * the same bundle.
 * Each subcommand is imported when it runs, so `send` never loads the server's code (the
 * bundle puts it in a chunk of its own). server/cli.ts stays the headless module (and the
 * entry under tsx).
 */
const HELP = `Usage: herald [command] [options]

Commands:
  start                run Herald headless (the default when no command is given)
  send                 send one message through Herald's send API
  import-message-nest  import a Message Nest database into a data folder
  migrate-to-postgres  copy a stopped SQLite install into an empty PostgreSQL database
  backup               back up a data folder into one file, while Herald runs
  restore              fill a data folder from a backup file
  admin                list accounts, or reset a lost password with a one-time sign-in link
  rotate-key           re-seal every stored secret under a new server key (Herald stopped)

Run \`herald <command> --help\` for a command's options, e.g. \`herald send --help\`.
`;

const COMMANDS = [
  'start',
  'send',
  'import-message-nest',
  'migrate-to-postgres',
  'backup',
  'restore',
  'admin',
  'rotate-key',
];

const fail = (err: unknown): never => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
};

/** Runs a one-off job and exits with its code: a database driver's pool may keep Node alive. */
async function runJob(job: Promise<number>): Promise<void> {
  process.exit(await job);
}

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
  if (command === 'import-message-nest') {
    const { runImportCli } = await import('./features/import/message-nest/cli');
    return runJob(runImportCli(rest));
  }
  if (command === 'migrate-to-postgres') {
    const { runMoveCli } = await import('./features/move-to-postgres/cli');
    return runJob(runMoveCli(rest));
  }
  if (command === 'backup' || command === 'restore') {
    const { runBackupCli, runRestoreCli } = await import('./features/backup/cli');
    const { readVersion } = await import('./version');
    const run = command === 'backup' ? runBackupCli : runRestoreCli;
    return runJob(run(rest, { version: readVersion() }));
  }
  if (command === 'admin') {
    const { runAdminCli } = await import('./features/admin-cli/cli');
    return runJob(runAdminCli(rest));
  }
  if (command === 'rotate-key') {
    const { runRotateKeyCli } = await import('./features/key-rotation/cli');
    return runJob(runRotateKeyCli(rest));
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
  const near = COMMANDS.find((name) => name.startsWith(command.slice(0, 3)));
  process.stderr.write(
    `herald: unknown command "${command}"${near ? ` (did you mean "${near}"?)` : ''}\n\n${HELP}`,
  );
  process.exitCode = 2;
}

main(process.argv.slice(2)).catch(fail);
