import { AppError } from '../../lib/errors';
import type { HeraldParts } from '../../parts';
import type { RateLimiter } from '../../features/sending/rate-limiter';

/** What the per-template (or per-task) rate check reads. */
export type RateCheckDeps = Pick<HeraldParts, 'settings' | 'clock'> & { limiter: RateLimiter };

/**
 * The send rate limit (Settings, sends per minute), shared by the send APIs and the hooks:
 * keyed on the task or template the credential opened, after it was checked, so spellings of
 * one task_id, or its token and task_id, share one budget, and made-up credentials never
 * reach the limiter.
 */
export function createRateCheck(deps: RateCheckDeps): (rateKey: string) => Promise<void> {
  return async (rateKey) => {
    const perMinute = deps.settings.get().rateLimitPerMinute;
    if (!(await deps.limiter.allow(rateKey, perMinute, deps.clock.now()))) {
      const per = rateKey.startsWith('template:') ? 'template' : 'task';
      throw new AppError(429, `rate limit: at most ${perMinute} sends a minute per ${per}`);
    }
  };
}
