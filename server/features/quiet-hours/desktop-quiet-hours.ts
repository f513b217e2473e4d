import { Op } from 'sequelize';

import { User } from '../../db/models';
import { QuietHoursRuleRow } from '../../db/models/quiet-hours-rule';
import type { WriteLock } from '../../db/writer';
import type { QuietDecision } from '../../domain/quiet-decision';
import type { Clock } from '../../lib/clock';
import { canonicalTimeZone } from '../schedules/cron';
import type { QuietHoursLookup } from './quiet-hours-lookup';

/**
 * What the desktop shell asks of quiet hours (issue 46 §1, docs/desktop.md "Quiet hours"): the
 * window person's own rules for each native notification, and the one-time move of the old
 * do-not-disturb switch into a person's rule.
 */
export interface DesktopQuietHours {
  /** The person's rules for a message of `priority` now: null when none applies. */
  decide(userId: number, priority: number | null): Promise<QuietDecision | null>;
  /**
   * Gives the desktop's own person (the first administrator, whom the window's one-time sign-in
   * opens) the rule do-not-disturb was: every day, all day, notifications dropped. Answers the
   * rule's id (an equal rule already there counts), or null when there is no administrator yet.
   */
  migrateDoNotDisturb(timezone: string): Promise<number | null>;
}

/** The rule the old switch becomes: every day from 00:00 to 00:00, dropped, priority 5 through. */
export const DO_NOT_DISTURB_RULE = {
  weekdays: [0, 1, 2, 3, 4, 5, 6],
  startTime: '00:00',
  endTime: '00:00',
  action: 'drop' as const,
  bypassPriority: 5,
};

export function desktopQuietHours(deps: {
  lookup: Pick<QuietHoursLookup, 'forPerson'>;
  writeLock: WriteLock;
  clock: Clock;
}): DesktopQuietHours {
  return {
    decide: (userId, priority) => deps.lookup.forPerson(userId, priority, deps.clock.now()),
    async migrateDoNotDisturb(timezone) {
      const admin = await User.findOne({
        where: { role: 'admin', disabled: false, passwordHash: { [Op.ne]: '' } },
        order: [['id', 'ASC']],
      });
      if (!admin) return null;
      const zone = canonicalTimeZone(timezone) ?? 'UTC';
      const rules = await QuietHoursRuleRow.findAll({ where: { userId: admin.id } });
      const same = rules.find(
        (r) =>
          r.startTime === DO_NOT_DISTURB_RULE.startTime &&
          r.endTime === DO_NOT_DISTURB_RULE.endTime &&
          r.action === DO_NOT_DISTURB_RULE.action &&
          r.weekdays.length === 7,
      );
      if (same) {
        if (!same.enabled) await deps.writeLock.run(() => same.update({ enabled: true }));
        return same.id;
      }
      const created = await deps.writeLock.run(() =>
        QuietHoursRuleRow.create({
          userId: admin.id,
          instanceId: null,
          channelId: null,
          timezone: zone,
          ...DO_NOT_DISTURB_RULE,
          enabled: true,
        }),
      );
      return created.id;
    },
  };
}
