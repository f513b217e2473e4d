import { QueryTypes, type Sequelize } from 'sequelize';

import { DEFAULT_PRIORITY, parsePriority } from '../../../contract/priority';
import { configVersion } from '../../db/config-version';
import { QuietHoursRuleRow } from '../../db/models/quiet-hours-rule';
import {
  decideQuietHours,
  type QuietDecision,
  type QuietRuleLike,
} from '../../domain/quiet-decision';

/** The rules of one owner kind, by owner id. */
type RulesByOwner = Map<number, QuietRuleLike[]>;

interface CachedRules {
  version: number;
  instance: RulesByOwner;
  channel: RulesByOwner;
  user: RulesByOwner;
}

export function ruleLikeOf(row: QuietHoursRuleRow): QuietRuleLike {
  return {
    id: row.id,
    timezone: row.timezone,
    weekdays: row.weekdays,
    start: row.startTime,
    end: row.endTime,
    action: row.action,
    bypassPriority: row.bypassPriority,
    enabled: Boolean(row.enabled),
  };
}

/**
 * The quiet-hours rules as the pipeline asks for them at every attempt (docs/architecture.md
 * "Quiet hours"). The enabled rules are kept in memory until the configuration version moves
 * (a rule, channel or instance written here, in the main thread or in another process), so an
 * installation without rules pays nothing per delivery and one with rules one read per change.
 */
export class QuietHoursLookup {
  private cache: CachedRules | null = null;

  constructor(private readonly sequelize: Sequelize) {}

  private async rules(): Promise<CachedRules> {
    const version = configVersion();
    if (this.cache && this.cache.version === version) return this.cache;
    const rows = await QuietHoursRuleRow.findAll({
      where: { enabled: true },
      order: [['id', 'ASC']],
    });
    const fresh: CachedRules = {
      version,
      instance: new Map(),
      channel: new Map(),
      user: new Map(),
    };
    for (const row of rows) {
      const [kind, id] =
        row.instanceId !== null
          ? (['instance', row.instanceId] as const)
          : row.channelId !== null
            ? (['channel', row.channelId] as const)
            : (['user', row.userId!] as const);
      const list = fresh[kind].get(id) ?? [];
      list.push(ruleLikeOf(row));
      fresh[kind].set(id, list);
    }
    // Only a read that no write overtook is kept.
    if (configVersion() === version) this.cache = fresh;
    return fresh;
  }

  /**
   * What the rules of a channel delivery's instance, then its channel, say at `at`; null when
   * none applies. The instance is read only when some instance has a rule.
   */
  async forDelivery(
    delivery: { id: number; channelId: number; priority: number | null },
    at: number,
  ): Promise<QuietDecision | null> {
    const rules = await this.rules();
    if (rules.instance.size === 0 && rules.channel.size === 0) return null;
    let instanceRules: QuietRuleLike[] = [];
    if (rules.instance.size > 0) {
      const [row] = await this.sequelize.query<{ instance_id: number | null }>(
        'SELECT instance_id FROM deliveries WHERE id = :id',
        { type: QueryTypes.SELECT, replacements: { id: delivery.id } },
      );
      const instanceId = row?.instance_id ?? null;
      if (instanceId !== null) instanceRules = rules.instance.get(Number(instanceId)) ?? [];
    }
    const priority = parsePriority(delivery.priority) ?? DEFAULT_PRIORITY;
    return decideQuietHours(
      [instanceRules, rules.channel.get(delivery.channelId) ?? []],
      at,
      priority,
    );
  }

  /** What a person's own rules say at `at` for a message of `priority` (Web Push, desktop). */
  async forPerson(
    userId: number,
    priority: number | null,
    at: number,
  ): Promise<QuietDecision | null> {
    const rules = await this.rules();
    const own = rules.user.get(userId);
    if (!own) return null;
    return decideQuietHours([own], at, parsePriority(priority) ?? DEFAULT_PRIORITY);
  }
}
