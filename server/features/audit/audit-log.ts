import { QueryTypes, type Sequelize } from 'sequelize';

import type { AuditAction, AuditChange } from '../../../contract';
import type { Paging } from '../../lib/paging';
import { COUNT_CAP } from '../../db/history/search-plan';
import { pageOf } from '../../lib/paging';
import type { HeraldParts } from '../../parts';

/**
 * Who did something: a signed-in user, someone who tried to sign in (no id), or the command
 * line (`CLI_ACTOR`), and from where.
 */
export interface AuditActor {
  userId: number | null;
  username: string;
  ip?: string | null;
  userAgent?: string | null;
}

/** Backups, restores and imports run from the command line record as this. */
export const CLI_ACTOR: AuditActor = { userId: null, username: 'cli', ip: null, userAgent: null };

/** Herald's own timed jobs (a scheduled backup) record as this. */
export const SCHEDULE_ACTOR: AuditActor = {
  userId: null,
  username: 'schedule',
  ip: null,
  userAgent: null,
};

export interface AuditRecord {
  who: AuditActor;
  /** `channel.update`, `backup.create`… (docs/console-api.md "Audit log"). */
  action: AuditAction;
  targetType: string;
  targetId?: string | number | null;
  targetName?: string | null;
  changes?: AuditChange[];
  /** Names of what the entry refers to by id, as they are now (`template:1` → "Nightly"). */
  names?: Record<string, string>;
}

export interface AuditListQuery {
  q?: string;
  user?: string;
  action?: string;
  from?: Date;
  to?: Date;
}

interface AuditRow {
  id: number | string;
  at: number | string;
  user_id: number | null;
  username: string;
  ip: string | null;
  user_agent: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  target_name: string | null;
  changes: string;
  names: string | null;
}

/** Long user agents and names are cut: an entry says who, it does not keep what a client sent. */
const clip = (s: string | null | undefined, max: number) =>
  s === null || s === undefined ? null : s.slice(0, max);

/** Names are cut as the target's is, and only a few are kept: an entry refers to a handful. */
function clipNames(names: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(names)
      .slice(0, 20)
      .map(([key, name]) => [key.slice(0, 100), name.slice(0, 200)]),
  );
}

/** What the audit log uses of the composed parts. */
export type AuditLogDeps = Pick<HeraldParts, 'sequelize' | 'writeLock' | 'clock'>;

/**
 * The audit log: append-only from the API (only `record` writes; retention alone deletes,
 * server/db/history/retention.ts).
 */
export class AuditLog {
  constructor(private readonly deps: AuditLogDeps) {}

  /** Appends one entry, through the writer like every write. */
  async record(entry: AuditRecord): Promise<void> {
    const { sequelize, writeLock, clock } = this.deps;
    const replacements = {
      at: clock.now(),
      userId: entry.who.userId,
      username: clip(entry.who.username, 200) ?? '',
      ip: clip(entry.who.ip, 100),
      userAgent: clip(entry.who.userAgent, 500),
      action: entry.action,
      targetType: entry.targetType,
      targetId:
        entry.targetId === undefined || entry.targetId === null ? null : String(entry.targetId),
      targetName: clip(entry.targetName, 200),
      changes: JSON.stringify(entry.changes ?? []),
      names: JSON.stringify(clipNames(entry.names ?? {})),
    };
    await writeLock.run(
      ({ transaction }) =>
        sequelize.query(
          `INSERT INTO audit_entries
             (at, user_id, username, ip, user_agent, action, target_type, target_id, target_name,
              changes, names)
           VALUES (:at, :userId, :username, :ip, :userAgent, :action, :targetType, :targetId,
             :targetName, :changes, :names)`,
          { replacements, transaction },
        ),
      { repeatable: true },
    );
  }

  /** A page of entries, newest first. */
  async list(query: AuditListQuery, paging: Paging) {
    const { sequelize } = this.deps;
    const { where, replacements } = conditions(sequelize, query);
    const rows = await sequelize.query<AuditRow>(
      `SELECT * FROM audit_entries ${where} ORDER BY at DESC, id DESC LIMIT :limit OFFSET :offset`,
      {
        type: QueryTypes.SELECT,
        replacements: { ...replacements, limit: paging.pageSize, offset: paging.offset },
      },
    );
    // Counting a million entries costs more than listing 50 of them: like the send log, the
    // total stops at COUNT_CAP, which is all a pager needs ("10,000+").
    const [counted] = await sequelize.query<{ n: number | string }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM audit_entries ${where} LIMIT ${COUNT_CAP + 1}) AS capped`,
      { type: QueryTypes.SELECT, replacements },
    );
    const n = Number(counted?.n ?? 0);
    return {
      ...pageOf(rows.map(toEntry), Math.min(n, COUNT_CAP), paging),
      totalIsCapped: n > COUNT_CAP,
    };
  }
}

function conditions(sequelize: Sequelize, query: AuditListQuery) {
  const clauses: string[] = [];
  const replacements: Record<string, unknown> = {};
  if (query.user) {
    clauses.push('username = :user');
    replacements.user = query.user;
  }
  if (query.action) {
    clauses.push('action = :action');
    replacements.action = query.action;
  }
  if (query.from) {
    clauses.push('at >= :from');
    replacements.from = query.from.getTime();
  }
  if (query.to) {
    clauses.push('at <= :to');
    replacements.to = query.to.getTime();
  }
  if (query.q) {
    const like = sequelize.getDialect() === 'postgres' ? 'ILIKE' : 'LIKE';
    clauses.push(
      ['target_name', 'action', 'username']
        .map((c) => `${c} ${like} :q ESCAPE '\\'`)
        .join(' OR ')
        .replace(/^/, '(')
        .concat(')'),
    );
    replacements.q = `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', replacements };
}

function toEntry(row: AuditRow) {
  return {
    id: Number(row.id),
    at: new Date(Number(row.at)),
    userId: row.user_id === null ? null : Number(row.user_id),
    username: row.username,
    ip: row.ip,
    userAgent: row.user_agent,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    targetName: row.target_name,
    changes: JSON.parse(row.changes) as AuditChange[],
    names: row.names ? (JSON.parse(row.names) as Record<string, string>) : {},
  };
}
