/**
 * On PostgreSQL the database is not in the data folder, and PostgreSQL's own tools back it up
 * consistently while Herald runs. The lines use the variable itself, so no password is printed
 * and they run as they are in the shell Herald's variables are set in.
 */
export const PG_DUMP_LINE =
  'pg_dump --format=custom --file=herald-$(date +%Y%m%d-%H%M%S).dump "$HERALD_DATABASE_URL"';
export const PG_RESTORE_LINE =
  'pg_restore --clean --if-exists --no-owner --dbname="$HERALD_DATABASE_URL" herald-YYYYMMDD-HHMMSS.dump';

export function postgresBackupAdvice(): string {
  return [
    'Herald runs on PostgreSQL here (HERALD_DATABASE_URL): its data is in that database, not in a data folder, so back it up with PostgreSQL’s own tool:',
    `  ${PG_DUMP_LINE}`,
    'and keep the server key (HERALD_SECRET_KEY or HERALD_SECRET_KEY_FILE) with it: the dump’s secrets are sealed with it.',
    'See docs/running-for-a-team.md, "Backup and restore".',
  ].join('\n');
}

export function postgresRestoreAdvice(): string {
  return [
    'HERALD_DATABASE_URL is set: on PostgreSQL, restore a pg_dump backup with PostgreSQL’s own tool, with every Herald process stopped:',
    `  ${PG_RESTORE_LINE}`,
    'then start Herald with the server key the dump was made with. See docs/running-for-a-team.md, "Backup and restore".',
  ].join('\n');
}
