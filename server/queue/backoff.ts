import type { RetryPolicy } from '../config/settings-schema';

/**
 * Delay before the next try after `attempt` tries have failed: exponential from the base,
 * capped, then spread by ±jitter so retries of one burst do not arrive together.
 * `random` is injectable so the maths is testable.
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const exponential = policy.baseDelayMs * 2 ** Math.max(0, attempt - 1);
  const capped = Math.min(policy.maxDelayMs, exponential);
  const spread = 1 - policy.jitter + random() * 2 * policy.jitter;
  return Math.max(0, Math.round(capped * spread));
}

/** When the next try happens, honouring a wait the platform asked for; null means give up. */
export function nextAttemptAt(
  attempt: number,
  policy: RetryPolicy,
  now: number,
  platformWaitMs?: number,
  random?: () => number,
): number | null {
  if (attempt >= policy.maxAttempts) return null;
  const delay = retryDelayMs(attempt, policy, random);
  return now + Math.max(delay, platformWaitMs ?? 0);
}
