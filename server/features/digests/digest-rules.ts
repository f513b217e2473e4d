import { QueryTypes, type Sequelize } from 'sequelize';

import { configVersion } from '../../db/config-version';
import type { WriteLock } from '../../db/writer';
import type { Clock } from '../../lib/clock';
import {
  checkRule,
  DIGEST_LIMITS,
  type DigestOwnerKind,
  type DigestRule,
  type DigestRuleInput,
} from './digest-rule';

interface RuleRow {
  owner_kind: DigestOwnerKind;
  owner_id: number | string;
  window_minutes: number | string | null;
  cron: string | null;
  timezone: string | null;
  priority_threshold: number | string;
  title_limit: number | string;
}

const ruleOf = (row: RuleRow): DigestRule => ({
  ownerKind: row.owner_kind,
  ownerId: Number(row.owner_id),
  windowMinutes: row.window_minutes === null ? null : Number(row.window_minutes),
  cron: row.cron,
  timezone: row.timezone,
  priorityThreshold: Number(row.priority_threshold),
  titleLimit: Number(row.title_limit),
});

/**
 * Another process may change a rule: what this one keeps is read again after this long
 * (a change made here is seen at once).
 */
const KEPT_MS = 2_000;

export interface DigestRulesDeps {
  sequelize: Sequelize;
  writeLock: WriteLock;
  clock: Clock;
}

/**
 * The digest rules (migration 2026-12-03-1300): read on every send of a task or template, so
 * they are kept per owner while neither the configuration nor a rule changed here, and for a
 * moment at most (another process's change).
 */
export class DigestRules {
  private readonly kept = new Map<
    string,
    { rule: DigestRule | null; version: string; at: number }
  >();
  private changes = 0;

  constructor(private readonly deps: DigestRulesDeps) {}

  /** The rule of a task, template or instance, or null: it delivers at once. */
  async get(kind: DigestOwnerKind, id: number): Promise<DigestRule | null> {
    const key = `${kind}:${id}`;
    const version = `${configVersion()}.${this.changes}`;
    const hit = this.kept.get(key);
    if (hit && hit.version === version && Date.now() - hit.at < KEPT_MS) return hit.rule;
    const rows = await this.deps.sequelize.query<RuleRow>(
      'SELECT * FROM digest_rules WHERE owner_kind = :kind AND owner_id = :id',
      { replacements: { kind, id }, type: QueryTypes.SELECT },
    );
    const rule = rows[0] ? ruleOf(rows[0]) : null;
    if (this.kept.size > 1000) this.kept.clear();
    this.kept.set(key, { rule, version, at: Date.now() });
    return rule;
  }

  /** Sets (or replaces) an owner's rule; answers it as stored. */
  async put(kind: DigestOwnerKind, id: number, input: DigestRuleInput): Promise<DigestRule> {
    const checked = checkRule(input, this.deps.clock.now());
    await this.deps.writeLock.run(({ transaction }) =>
      this.deps.sequelize.query(
        `INSERT INTO digest_rules (owner_kind, owner_id, window_minutes, cron, timezone,
           priority_threshold, title_limit, updated_at)
         VALUES (:kind, :id, :windowMinutes, :cron, :timezone, :priorityThreshold, :titleLimit, :now)
         ON CONFLICT (owner_kind, owner_id) DO UPDATE SET
           window_minutes = excluded.window_minutes, cron = excluded.cron,
           timezone = excluded.timezone, priority_threshold = excluded.priority_threshold,
           title_limit = excluded.title_limit, updated_at = excluded.updated_at`,
        { replacements: { kind, id, ...checked, now: Date.now() }, transaction },
      ),
    );
    this.changes += 1;
    return { ownerKind: kind, ownerId: id, ...checked };
  }

  /** Stops collecting: sends deliver at once again (open digests still close at their time). */
  async remove(kind: DigestOwnerKind, id: number): Promise<void> {
    await this.deps.writeLock.run(({ transaction }) =>
      this.deps.sequelize.query(
        'DELETE FROM digest_rules WHERE owner_kind = :kind AND owner_id = :id',
        { replacements: { kind, id }, transaction },
      ),
    );
    this.changes += 1;
  }
}

/** A rule's defaults for the fields the console may leave out. */
export const RULE_DEFAULTS = {
  priorityThreshold: DIGEST_LIMITS.defaultPriorityThreshold,
  titleLimit: DIGEST_LIMITS.defaultTitleLimit,
};
