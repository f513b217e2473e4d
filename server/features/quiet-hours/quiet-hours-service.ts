import { Op, type WhereOptions } from 'sequelize';

import type {
  QuietHoursCreate,
  QuietHoursOwnerType,
  QuietHoursPatch,
  QuietHoursPreview,
  QuietHoursRule,
  UserRole,
} from '../../../contract';
import { Channel, Instance, User } from '../../db/models';
import type { AuditState } from '../audit/audit-diff';
import { QuietHoursRuleRow } from '../../db/models/quiet-hours-rule';
import type { WriteLock } from '../../db/writer';
import { decideQuietHours } from '../../domain/quiet-decision';
import type { Clock } from '../../lib/clock';
import { AppError, badRequest, notFound } from '../../lib/errors';
import { canonicalTimeZone } from '../schedules/cron';
import { ruleLikeOf } from './quiet-hours-lookup';

/** Who asks: every rule decision below is theirs. */
export interface QuietHoursCaller {
  id: number;
  role: UserRole;
}

export interface QuietHoursServiceDeps {
  writeLock: WriteLock;
  clock: Clock;
}

const ALL_WEEKDAYS = [0, 1, 2, 3, 4, 5, 6];

const forbidden = (msg: string) => new AppError(403, `forbidden: ${msg}`);

function ownerOf(row: QuietHoursRuleRow): { ownerType: QuietHoursOwnerType; ownerId: number } {
  if (row.instanceId !== null) return { ownerType: 'instance', ownerId: row.instanceId };
  if (row.channelId !== null) return { ownerType: 'channel', ownerId: row.channelId };
  return { ownerType: 'user', ownerId: row.userId! };
}

export function quietHoursDto(row: QuietHoursRuleRow): QuietHoursRule {
  return {
    id: row.id,
    ...ownerOf(row),
    timezone: row.timezone,
    weekdays: row.weekdays,
    start: row.startTime,
    end: row.endTime,
    action: row.action,
    bypassPriority: row.bypassPriority,
    enabled: Boolean(row.enabled),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The audit log's view of a rule (route-audit.ts): named by its owner. */
export async function quietHoursAuditState(id: number): Promise<AuditState | null> {
  const row = await QuietHoursRuleRow.findByPk(id);
  if (!row) return null;
  const { createdAt: _c, updatedAt: _u, id: _id, ...fields } = quietHoursDto(row);
  return {
    name: `${fields.ownerType} ${fields.ownerId}`,
    fields: { ...fields, weekdays: fields.weekdays.join(',') },
    secrets: {},
  };
}

/**
 * Quiet-hours rules as the console edits them (docs/console-api.md "Quiet hours"). Channel and
 * instance rules are editors' (like the channels and instances themselves); a person's rule is
 * their own, whatever their role, and an administrator's to see and change for anyone.
 */
export class QuietHoursService {
  constructor(private readonly deps: QuietHoursServiceDeps) {}

  private mayTouch(caller: QuietHoursCaller, ownerType: QuietHoursOwnerType, ownerId: number) {
    if (ownerType === 'user') return ownerId === caller.id || caller.role === 'admin';
    return caller.role === 'admin' || caller.role === 'editor';
  }

  private check(caller: QuietHoursCaller, ownerType: QuietHoursOwnerType, ownerId: number) {
    if (this.mayTouch(caller, ownerType, ownerId)) return;
    throw forbidden(
      ownerType === 'user'
        ? "a person's quiet hours are their own (or an administrator's)"
        : "a channel's or instance's quiet hours need the editor role",
    );
  }

  async list(
    caller: QuietHoursCaller,
    filter: { ownerType?: QuietHoursOwnerType; ownerId?: number },
  ) {
    const where: WhereOptions<QuietHoursRuleRow>[] = [];
    const column = { instance: 'instanceId', channel: 'channelId', user: 'userId' } as const;
    if (filter.ownerType) {
      const col = column[filter.ownerType];
      where.push(
        filter.ownerId !== undefined ? { [col]: filter.ownerId } : { [col]: { [Op.ne]: null } },
      );
    } else if (filter.ownerId !== undefined) {
      throw badRequest('ownerId: give ownerType with it');
    }
    // What the caller may not touch is not listed either.
    if (caller.role === 'viewer') where.push({ userId: caller.id });
    else if (caller.role === 'editor') {
      where.push({ [Op.or]: [{ userId: null }, { userId: caller.id }] });
    }
    const rows = await QuietHoursRuleRow.findAll({
      where: { [Op.and]: where },
      order: [['id', 'ASC']],
    });
    return { items: rows.map(quietHoursDto) };
  }

  private async ownerExists(ownerType: QuietHoursOwnerType, ownerId: number): Promise<void> {
    const model = { instance: Instance, channel: Channel, user: User }[ownerType] as unknown as {
      findByPk(id: number): Promise<unknown>;
    };
    if (!(await model.findByPk(ownerId))) {
      throw notFound(`${ownerType} ${ownerId} does not exist`);
    }
  }

  async create(caller: QuietHoursCaller, body: QuietHoursCreate): Promise<QuietHoursRule> {
    this.check(caller, body.ownerType, body.ownerId);
    await this.ownerExists(body.ownerType, body.ownerId);
    const row = await this.deps.writeLock.run(() =>
      QuietHoursRuleRow.create({
        instanceId: body.ownerType === 'instance' ? body.ownerId : null,
        channelId: body.ownerType === 'channel' ? body.ownerId : null,
        userId: body.ownerType === 'user' ? body.ownerId : null,
        timezone: zoneOf(body.timezone),
        weekdays: body.weekdays ?? ALL_WEEKDAYS,
        startTime: body.start,
        endTime: body.end,
        action: body.action ?? 'hold',
        bypassPriority: body.bypassPriority ?? 5,
        enabled: body.enabled ?? true,
      }),
    );
    return quietHoursDto(row);
  }

  private async get(caller: QuietHoursCaller, id: number): Promise<QuietHoursRuleRow> {
    const row = await QuietHoursRuleRow.findByPk(id);
    if (!row) throw notFound(`quiet-hours rule ${id} does not exist`);
    const { ownerType, ownerId } = ownerOf(row);
    if (!this.mayTouch(caller, ownerType, ownerId)) {
      // Someone else's person rule is not admitted to exist; a channel's is refused by role.
      if (ownerType === 'user') throw notFound(`quiet-hours rule ${id} does not exist`);
      this.check(caller, ownerType, ownerId);
    }
    return row;
  }

  async update(caller: QuietHoursCaller, id: number, patch: QuietHoursPatch) {
    const row = await this.get(caller, id);
    const values: Partial<QuietHoursRuleRow> = {};
    if (patch.timezone !== undefined) values.timezone = zoneOf(patch.timezone);
    if (patch.weekdays !== undefined) values.weekdays = patch.weekdays;
    if (patch.start !== undefined) values.startTime = patch.start;
    if (patch.end !== undefined) values.endTime = patch.end;
    if (patch.action !== undefined) values.action = patch.action;
    if (patch.bypassPriority !== undefined) values.bypassPriority = patch.bypassPriority;
    if (patch.enabled !== undefined) values.enabled = patch.enabled;
    await this.deps.writeLock.run(() => row.update(values));
    return quietHoursDto(row);
  }

  async remove(caller: QuietHoursCaller, id: number): Promise<void> {
    const row = await this.get(caller, id);
    await this.deps.writeLock.run(() => row.destroy());
  }

  /**
   * Would a message of `priority` sent at `at` (default now) to this instance, channel or
   * person be held, softened or dropped, and until when? An instance answers with its own
   * rules first, then its channel's, as the pipeline decides.
   */
  async preview(
    caller: QuietHoursCaller,
    query: {
      instanceId?: number;
      channelId?: number;
      userId?: number;
      priority?: number;
      at?: string;
    },
  ): Promise<QuietHoursPreview> {
    const given = (['instanceId', 'channelId', 'userId'] as const).filter(
      (k) => query[k] !== undefined,
    );
    if (given.length !== 1)
      throw badRequest('give exactly one of instanceId, channelId and userId');
    const at = query.at !== undefined ? Date.parse(query.at) : this.deps.clock.now();
    const priority = query.priority ?? 3;
    let owners: QuietHoursRuleRow[][];
    if (query.userId !== undefined) {
      this.check(caller, 'user', query.userId);
      owners = [await QuietHoursRuleRow.findAll({ where: { userId: query.userId } })];
    } else if (query.instanceId !== undefined) {
      this.check(caller, 'instance', query.instanceId);
      const instance = await Instance.findByPk(query.instanceId);
      if (!instance) throw notFound(`instance ${query.instanceId} does not exist`);
      owners = [
        await QuietHoursRuleRow.findAll({ where: { instanceId: instance.id } }),
        await QuietHoursRuleRow.findAll({ where: { channelId: instance.channelId } }),
      ];
    } else {
      this.check(caller, 'channel', query.channelId!);
      owners = [await QuietHoursRuleRow.findAll({ where: { channelId: query.channelId! } })];
    }
    const decision = decideQuietHours(
      owners.map((rows) => rows.map(ruleLikeOf)),
      at,
      priority,
    );
    return decision
      ? {
          applies: true,
          action: decision.action,
          until: new Date(decision.until).toISOString(),
          ruleId: decision.ruleId,
        }
      : { applies: false, action: null, until: null, ruleId: null };
  }
}

function zoneOf(zone: string): string {
  const canonical = canonicalTimeZone(zone);
  if (!canonical) {
    throw badRequest(
      `timezone: "${zone}" is not a known IANA time zone; use a name such as "Europe/Berlin", "Asia/Shanghai" or "UTC"`,
    );
  }
  return canonical;
}
