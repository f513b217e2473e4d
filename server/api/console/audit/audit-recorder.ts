import type { Request } from 'express';

import { consoleRoutes, type RouteSpec } from '../../../../contract';
import type { AuditActor, AuditLog, AuditRecord } from '../../../features/audit/audit-log';
import { diffStates } from '../../../features/audit/audit-diff';
import { errorMessage } from '../../../lib/errors';
import { createLogger } from '../../../lib/logger';
import type { RouteWrapper } from '../../contract-route';
import type { AuditRule, RouteAuditTable } from './route-audit';

const log = createLogger('audit');

/** Who made a request, from where: the signed-in user, or a name given (a failed sign-in). */
export function actorOf(req: Request, fallbackName = ''): AuditActor {
  return {
    userId: req.user?.id ?? null,
    username: req.user?.username ?? fallbackName,
    ip: req.ip ?? null,
    userAgent: req.get('user-agent') ?? null,
  };
}

/**
 * Records something that already happened (a sign-in): a failure to record is logged, and
 * what happened stands.
 */
export async function recordDone(audit: AuditLog, entry: AuditRecord): Promise<void> {
  try {
    await audit.record(entry);
  } catch (err) {
    log.error(`${entry.action}: not recorded: ${errorMessage(err)}`);
  }
}

/** The table's rules by the route spec they belong to. */
function rulesBySpec(table: RouteAuditTable): Map<RouteSpec, AuditRule> {
  const rules = new Map<RouteSpec, AuditRule>();
  for (const [feature, routes] of Object.entries(consoleRoutes)) {
    const featureRules = table[feature as keyof RouteAuditTable] as Record<
      string,
      AuditRule | null
    >;
    for (const [name, spec] of Object.entries(routes as Record<string, RouteSpec>)) {
      const rule = featureRules[name];
      if (rule) rules.set(spec, rule);
    }
  }
  return rules;
}

const idOf = (value: unknown): number | null => {
  const id = (value as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'number' ? id : null;
};

/**
 * The console's one audit recorder: around every route the table names, the target's state is
 * read before the handler runs and after it answered, and the difference is appended to the
 * audit log before the answer goes out. The change has committed by then (each service writes
 * in its own job), so a failure to record is logged, never answered: the change stands.
 */
export function auditRecorder(audit: AuditLog, table: RouteAuditTable): RouteWrapper {
  const rules = rulesBySpec(table);
  return async (spec, input, req, run) => {
    const rule = rules.get(spec);
    if (!rule || rule.skip?.(input)) return run();
    const paramsId = rule.target === 'params' ? idOf(input.params) : null;
    const before = rule.target === 'answer' || !rule.state ? null : await load(rule, paramsId);
    const answer = await run();
    try {
      const id = rule.target === 'answer' ? idOf(answer) : paramsId;
      const after = rule.state ? await load(rule, id) : null;
      await audit.record({
        who: actorOf(req),
        action: rule.action,
        targetType: rule.targetType,
        targetId: id,
        targetName: after?.name ?? before?.name ?? rule.name ?? null,
        changes: [
          ...(rule.state ? diffStates(before, after) : []),
          ...(rule.changes?.(input, answer) ?? []),
        ],
        // Both sides: an edit that moves an instance to another channel names the two.
        names: { ...before?.names, ...after?.names },
      });
    } catch (err) {
      log.error(`${rule.action}: the change was made but not recorded: ${errorMessage(err)}`);
    }
    return answer;
  };
}

/** A target's state; a missing one (the handler will answer 404) is null. */
async function load(rule: AuditRule, id: number | null) {
  try {
    return (await rule.state?.(id)) ?? null;
  } catch {
    return null;
  }
}
