import { Op } from 'sequelize';

import type { AnyChannelAdapter } from '../../channels/channel-adapter';
import { adapterFor, type ChannelRegistry } from '../../channels/registry';
import { Channel, Instance } from '../../db/models';
import { AppError, notFound } from '../../lib/errors';
import { splitList } from '../../domain/lists';
import type { HeraldParts } from '../../parts';
import type { InstanceCreate, InstancePatch } from '../../../contract';

/** The source an instance belongs to: a task (V1) or a template (V2). */
export type SourceRef = { kind: 'task'; id: number } | { kind: 'template'; id: number };

const MOBILE = /^\+?[0-9][0-9-]{2,19}$/;
const HOSTED = 'hosted';

function sourceWhere(source: SourceRef) {
  return source.kind === 'task' ? { taskId: source.id } : { templateId: source.id };
}

/** Whether an instance sends to a recipient fixed in its configuration (email address, OpenID). */
function hasFixedRecipient(
  adapter: AnyChannelAdapter | undefined,
  inst: { dynamicRecipients: boolean },
): boolean {
  return adapter?.fixedRecipient === 'required' && !inst.dynamicRecipients;
}

/** What InstanceService uses of the composed parts. */
export type InstanceServiceDeps = Pick<HeraldParts, 'writeLock' | 'registry'>;

export class InstanceService {
  constructor(private readonly deps: InstanceServiceDeps) {}

  toDto(inst: Instance, channel: Channel | null | undefined) {
    return {
      id: inst.id,
      taskId: inst.taskId,
      templateId: inst.templateId,
      channelId: inst.channelId,
      channel: channel ? { id: channel.id, name: channel.name, type: channel.type } : null,
      contentType: inst.contentType,
      enabled: inst.enabled,
      recipient: inst.recipient,
      dynamicRecipients: inst.dynamicRecipients,
      atMobiles: inst.atMobiles,
      atAll: inst.atAll,
      templateCode: inst.templateCode ?? null,
      publicLink: inst.publicLink,
      createdAt: inst.createdAt,
      updatedAt: inst.updatedAt,
    };
  }

  async listFor(source: SourceRef) {
    const instances = await Instance.findAll({
      where: sourceWhere(source),
      order: [['id', 'ASC']],
    });
    const channels = new Map(
      (await Channel.findAll({ where: { id: instances.map((i) => i.channelId) } })).map((c) => [
        c.id,
        c,
      ]),
    );
    return instances.map((i) => this.toDto(i, channels.get(i.channelId)));
  }

  async create(source: SourceRef, input: InstanceCreate) {
    const channel = await Channel.findByPk(input.channelId);
    if (!channel) throw new AppError(400, `channelId: channel ${input.channelId} does not exist`);
    const values = await this.check(source, channel, input, null);
    const inst = await this.deps.writeLock.run(() =>
      Instance.create({
        taskId: source.kind === 'task' ? source.id : null,
        templateId: source.kind === 'template' ? source.id : null,
        channelId: channel.id,
        ...values,
      }),
    );
    return this.toDto(inst, channel);
  }

  async update(id: number, patch: InstancePatch) {
    const inst = await Instance.findByPk(id);
    if (!inst) throw notFound(`instance ${id} does not exist`);
    const channel = await Channel.findByPk(inst.channelId);
    if (!channel) throw notFound(`channel ${inst.channelId} of instance ${id} does not exist`);
    const source: SourceRef =
      inst.taskId !== null
        ? { kind: 'task', id: inst.taskId }
        : { kind: 'template', id: inst.templateId as number };
    const merged = {
      contentType: patch.contentType ?? inst.contentType,
      enabled: patch.enabled ?? inst.enabled,
      recipient: patch.recipient ?? inst.recipient,
      dynamicRecipients: patch.dynamicRecipients ?? inst.dynamicRecipients,
      atMobiles: patch.atMobiles ?? inst.atMobiles,
      atAll: patch.atAll ?? inst.atAll,
      templateCode: patch.templateCode !== undefined ? patch.templateCode : inst.templateCode,
      // Kept only while the channel is hosted: a channel whose kind changed drops it quietly,
      // and only asking for it on another kind is refused.
      publicLink: patch.publicLink ?? (inst.publicLink && channel.type === HOSTED),
    };
    const values = await this.check(source, channel, merged, inst.id);
    await this.deps.writeLock.run(() => inst.update(values));
    return this.toDto(inst, channel);
  }

  async remove(id: number): Promise<void> {
    const inst = await Instance.findByPk(id);
    if (!inst) throw notFound(`instance ${id} does not exist`);
    await this.deps.writeLock.run(() => inst.destroy());
  }

  /** The contract's instance rules, each refused with a msg that names it. */
  private async check(
    source: SourceRef,
    channel: Channel,
    input: Omit<InstanceCreate, 'channelId'>,
    selfId: number | null,
  ): Promise<Omit<InstanceCreate, 'channelId'>> {
    const adapter = adapterFor(this.deps.registry, channel.type);
    if (!adapter)
      throw new AppError(
        400,
        `channelId: channel ${channel.id} has an unknown type "${channel.type}"`,
      );
    if (!adapter.contentTypes.includes(input.contentType)) {
      throw new AppError(
        400,
        `contentType: a ${adapter.label} channel accepts ${adapter.contentTypes.join(' or ')}, not ${input.contentType}`,
      );
    }
    if (input.dynamicRecipients && !adapter.supportsDynamicRecipients) {
      throw new AppError(
        400,
        `dynamicRecipients: a ${adapter.label} channel has no dynamic recipients (only ${dynamicKinds(this.deps.registry)})`,
      );
    }
    let recipient = input.recipient;
    if (input.dynamicRecipients) {
      recipient = '';
    } else if (adapter.fixedRecipient === 'required') {
      if (!recipient) {
        throw new AppError(
          400,
          `recipient: a ${adapter.label} instance needs a recipient, or dynamic recipients`,
        );
      }
      const problem = adapter.validateRecipient?.(recipient);
      if (problem) throw new AppError(400, `recipient: ${problem}`);
    }
    const mobiles = splitList(input.atMobiles);
    if ((mobiles.length > 0 || input.atAll) && !adapter.supportsMentions) {
      throw new AppError(
        400,
        `atMobiles: only robot channels take @mentions, not ${adapter.label}`,
      );
    }
    const badMobile = mobiles.find((m) => !MOBILE.test(m));
    if (badMobile) throw new AppError(400, `atMobiles: "${badMobile}" is not a phone number`);
    checkTemplateCode(adapter, channel, input.templateCode);
    if (input.publicLink && channel.type !== HOSTED) {
      throw new AppError(
        400,
        `publicLink: only hosted-message instances have public links, not ${adapter.label}`,
      );
    }

    const siblings = await Instance.findAll({
      where: { ...sourceWhere(source), ...(selfId ? { id: { [Op.ne]: selfId } } : {}) },
    });
    const siblingChannels = new Map(
      (await Channel.findAll({ where: { id: siblings.map((s) => s.channelId) } })).map((c) => [
        c.id,
        c,
      ]),
    );
    const what = source.kind === 'task' ? 'task' : 'template';
    if (input.dynamicRecipients) {
      if (siblings.some((s) => s.dynamicRecipients)) {
        throw new AppError(
          400,
          `dynamicRecipients: a ${what} may have only one dynamic-recipient instance`,
        );
      }
      const fixed = siblings.find((s) => {
        const c = siblingChannels.get(s.channelId);
        return hasFixedRecipient(c ? adapterFor(this.deps.registry, c.type) : undefined, s);
      });
      if (fixed) {
        throw new AppError(
          400,
          `dynamicRecipients: a dynamic-recipient instance cannot sit beside fixed-recipient instance ${fixed.id} in the same ${what}`,
        );
      }
    } else if (hasFixedRecipient(adapter, input) && siblings.some((s) => s.dynamicRecipients)) {
      throw new AppError(
        400,
        `recipient: this ${what} has a dynamic-recipient instance, which cannot sit beside fixed-recipient instances`,
      );
    }
    return { ...input, recipient, atMobiles: mobiles.join(',') };
  }
}

/** An instance's own template code: only where the kind takes one, and one where its channel has none. */
function checkTemplateCode(adapter: AnyChannelAdapter, channel: Channel, code: string | null) {
  const kind = adapter.instanceTemplateCode;
  if (!kind) {
    if (code) {
      throw new AppError(
        400,
        `templateCode: only Aliyun SMS instances take a template code, not ${adapter.label}`,
      );
    }
    return;
  }
  if (code) {
    const problem = kind.validate(code);
    if (problem) throw new AppError(400, problem);
  } else if (!kind.channelDefault(channel.config)) {
    throw new AppError(
      400,
      `templateCode: channel ${channel.id} names no template code, so its instances each need one`,
    );
  }
}

/** The labels of the kinds that take recipients from requests, for a refusal's msg. */
function dynamicKinds(registry: ChannelRegistry): string {
  return Object.values(registry)
    .filter((a) => a.supportsDynamicRecipients)
    .map((a) => a.label)
    .join(', ');
}
