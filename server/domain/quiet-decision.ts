import { quietUntil, type QuietWindow } from './quiet-window';

/*
 * Which quiet-hours rule, if any, a delivery meets now (issue 46 §1). Pure, like the window
 * maths it uses; the pipeline (server/features/quiet-hours) loads the rules and acts.
 */

export const QUIET_ACTIONS = ['hold', 'soften', 'drop'] as const;
export type QuietAction = (typeof QUIET_ACTIONS)[number];

export interface QuietRuleLike extends QuietWindow {
  id: number;
  action: QuietAction;
  /** A message of this priority or above is not held, softened or dropped. */
  bypassPriority: number;
  enabled: boolean;
}

export interface QuietDecision {
  ruleId: number;
  action: QuietAction;
  /** When the window ends (epoch ms): a hold's release time. */
  until: number;
}

/** Among one owner's applying rules the strictest wins: a drop over a hold over a soften. */
const STRICTNESS: Record<QuietAction, number> = { soften: 0, hold: 1, drop: 2 };

/**
 * The decision of one owner's rules at `at` for a message of `priority`, or null when none
 * applies (disabled, outside its window, or bypassed by the priority).
 */
export function decideOwner(
  rules: readonly QuietRuleLike[],
  at: number,
  priority: number,
): QuietDecision | null {
  let best: QuietDecision | null = null;
  for (const rule of rules) {
    if (!rule.enabled || priority >= rule.bypassPriority) continue;
    const until = quietUntil(rule, at);
    if (until === null) continue;
    const candidate = { ruleId: rule.id, action: rule.action, until };
    if (
      !best ||
      STRICTNESS[candidate.action] > STRICTNESS[best.action] ||
      (candidate.action === best.action && candidate.until > best.until)
    ) {
      best = candidate;
    }
  }
  return best;
}

/**
 * The decision for a delivery whose owners' rules are given most specific first (an instance's,
 * then its channel's): the first owner with a rule that applies decides, so an instance's rule
 * overrides its channel's while both are in their windows.
 */
export function decideQuietHours(
  owners: readonly (readonly QuietRuleLike[])[],
  at: number,
  priority: number,
): QuietDecision | null {
  for (const rules of owners) {
    const d = decideOwner(rules, at, priority);
    if (d) return d;
  }
  return null;
}
