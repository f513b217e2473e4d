import { AppError } from '../../lib/errors';
import { checkCron, checkTimeZone, CronError, nextCronRuns } from '../schedules/cron';

/** What collects its messages into digests: a task, a template, or one instance of either. */
export type DigestOwnerKind = 'task' | 'template' | 'instance';

/** The limits a rule is checked against (docs/send-api.md "Digests"). */
export const DIGEST_LIMITS = {
  minWindowMinutes: 1,
  maxWindowMinutes: 24 * 60,
  defaultPriorityThreshold: 5,
  defaultTitleLimit: 20,
  maxTitleLimit: 100,
} as const;

/**
 * A digest rule: a fixed window that opens with the first collected send (`windowMinutes`),
 * or windows that end at each time of a cron expression in an IANA zone. A send whose
 * priority is at or above `priorityThreshold` skips the digest and goes at once.
 */
export interface DigestRule {
  ownerKind: DigestOwnerKind;
  ownerId: number;
  windowMinutes: number | null;
  cron: string | null;
  timezone: string | null;
  priorityThreshold: number;
  titleLimit: number;
}

export type DigestRuleInput = Omit<DigestRule, 'ownerKind' | 'ownerId'>;

/** Checks a rule as the console sends it; a bad field is a 400 naming it. */
export function checkRule(input: DigestRuleInput, now: number): DigestRuleInput {
  const { windowMinutes, cron, timezone, priorityThreshold, titleLimit } = input;
  if ((windowMinutes === null) === (cron === null)) {
    throw new AppError(400, 'digest: give either windowMinutes or a cron expression, not both');
  }
  if (windowMinutes !== null) {
    if (
      !Number.isInteger(windowMinutes) ||
      windowMinutes < DIGEST_LIMITS.minWindowMinutes ||
      windowMinutes > DIGEST_LIMITS.maxWindowMinutes
    ) {
      throw new AppError(400, 'windowMinutes: must be a whole number of minutes, 1 to 1440');
    }
  }
  let normal = cron;
  let zone = timezone;
  if (cron !== null) {
    zone = cronField('timezone', () => checkTimeZone(timezone ?? 'UTC'));
    const checkedZone = zone;
    normal = cronField('cron', () => checkCron(cron, checkedZone, now));
  }
  if (!Number.isInteger(priorityThreshold) || priorityThreshold < 1 || priorityThreshold > 5) {
    throw new AppError(400, 'priorityThreshold: must be 1 to 5');
  }
  if (!Number.isInteger(titleLimit) || titleLimit < 1 || titleLimit > DIGEST_LIMITS.maxTitleLimit) {
    throw new AppError(400, `titleLimit: must be 1 to ${DIGEST_LIMITS.maxTitleLimit}`);
  }
  return {
    windowMinutes,
    cron: normal,
    timezone: cron === null ? null : zone,
    priorityThreshold,
    titleLimit,
  };
}

/** A cron or zone problem as a 400 naming its field. */
function cronField<T>(field: string, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof CronError) throw new AppError(400, `${field}: ${err.message}`);
    throw err;
  }
}

/**
 * When a window that opens at `now` closes: `now` plus its length, or the cron expression's
 * next time after `now` (null when it never comes again: the send then goes at once).
 */
export function windowUntil(rule: DigestRule, now: number): number | null {
  if (rule.windowMinutes !== null) return now + rule.windowMinutes * 60_000;
  if (rule.cron === null) return null;
  try {
    return nextCronRuns(rule.cron, rule.timezone ?? 'UTC', now, 1)[0] ?? null;
  } catch {
    return null;
  }
}
