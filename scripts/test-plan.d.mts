/** Types of scripts/test-plan.mjs (plain JavaScript, see there). */
export interface IntegrationFolder {
  /** both: SQLite, then PostgreSQL; postgres: its own PostgreSQL, once; sqlite: once. */
  db: 'both' | 'postgres' | 'sqlite';
  why: string;
}
export declare const INTEGRATION_FOLDERS: Readonly<Record<string, IntegrationFolder>>;
/** Files of a SQLite-once folder (`channels/x.test.ts`) that run on PostgreSQL too, with why. */
export declare const POSTGRES_ALSO: Readonly<Record<string, string>>;
export declare function postgresPassFolders(): string[];
export declare const STATIC_CHECKS: readonly string[];
