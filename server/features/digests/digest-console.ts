import { QueryTypes } from 'sequelize';

import type { DigestAnswer, DigestRuleBody } from '../../../contract';
import { Instance, Task, Template } from '../../db/models';
import { notFound } from '../../lib/errors';
import type { DigestRules } from './digest-rules';
import type { DigestRule } from './digest-rule';

type Owner = 'task' | 'template' | 'instance';

/** The owner's row (an instance: the row of its task or template's instance), or null. */
async function ownerRow(owner: Owner, id: number) {
  if (owner === 'task') return Task.findByPk(id);
  if (owner === 'template') return Template.findByPk(id);
  return Instance.findByPk(id);
}

const answerOf = (rule: DigestRule | null): DigestAnswer => ({
  rule: rule && {
    windowMinutes: rule.windowMinutes,
    cron: rule.cron,
    timezone: rule.timezone,
    priorityThreshold: rule.priorityThreshold,
    titleLimit: rule.titleLimit,
  },
});

/** A task's or template's digest rule as the console reads and edits it. */
export class DigestConsole {
  constructor(private readonly rules: DigestRules) {}

  async get(owner: Owner, id: number): Promise<DigestAnswer> {
    await mustExist(owner, id);
    return answerOf(await this.rules.get(owner, id));
  }

  async put(owner: Owner, id: number, body: DigestRuleBody): Promise<DigestAnswer> {
    await mustExist(owner, id);
    return answerOf(
      await this.rules.put(owner, id, {
        windowMinutes: body.windowMinutes ?? null,
        cron: body.cron || null,
        timezone: body.timezone ?? null,
        priorityThreshold: body.priorityThreshold ?? 5,
        titleLimit: body.titleLimit ?? 20,
      }),
    );
  }

  async remove(owner: Owner, id: number): Promise<void> {
    await mustExist(owner, id);
    await this.rules.remove(owner, id);
  }
}

/**
 * The audit log's view of a digest rule (server/api/console/audit/route-audit.ts): named by its
 * task or template, its fields compared before and after.
 */
export async function digestAuditState(owner: Owner, id: number) {
  const source = await ownerRow(owner, id);
  if (!source?.sequelize) return null;
  const [row] = await source.sequelize.query<Record<string, unknown>>(
    `SELECT window_minutes, cron, timezone, priority_threshold, title_limit FROM digest_rules
     WHERE owner_kind = :owner AND owner_id = :id`,
    { replacements: { owner, id }, type: QueryTypes.SELECT },
  );
  const digest = row
    ? {
        windowMinutes: row.window_minutes === null ? null : Number(row.window_minutes),
        cron: row.cron,
        timezone: row.timezone,
        priorityThreshold: Number(row.priority_threshold),
        titleLimit: Number(row.title_limit),
      }
    : null;
  const name = 'name' in source ? String(source.name) : `instance ${id}`;
  return { name, fields: { digest }, secrets: {} };
}

async function mustExist(owner: Owner, id: number): Promise<void> {
  if (!(await ownerRow(owner, id))) throw notFound(`${owner} ${id} does not exist`);
}
