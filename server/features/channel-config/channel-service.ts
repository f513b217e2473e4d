import { Op, type WhereOptions } from 'sequelize';

import {
  CHANNEL_KIND_GROUPS,
  channelSummaryKey,
  describeChannelConfig,
  type ChannelKind,
} from '../../../contract/channel-kinds';
import type {
  Channel as ChannelAnswer,
  ChannelType,
  ChannelUpdate,
  ChannelUse,
} from '../../../contract/console/channels';

import {
  noMentions,
  type AnyChannelAdapter,
  type ContentType,
} from '../../channels/channel-adapter';
import { DeliveryError } from '../../channels/delivery-error';
import { adapterFor } from '../../channels/registry';
import { joinOrTransact, type CallerTx } from '../../db/caller-tx';
import { configVersion } from '../../db/config-version';
import { Channel, Instance, Task, Template } from '../../db/models';
import { containsAny } from '../../db/search';
import { convertContent } from '../../domain/content-format';
import { AppError, conflict, errorMessage, notFound } from '../../lib/errors';
import { describeIssues } from '../../lib/validation';
import type { HeraldParts } from '../../parts';
import { maskSecrets, mergeSecretEdits, openSecrets, sealSecrets } from './channel-secrets';
import { maskProxy, mergeProxyEdit, openProxy, sealProxy } from './proxy-credentials';
import { redactSecrets, secretValues } from './secret-redaction';
import { assertSecretsFollowDestination, keptSecrets } from './secret-destination';

/** What a test message says, and whom it reaches when the kind needs a recipient. */
export interface TestMessage {
  title?: string;
  content?: string;
  recipient?: string;
}

export interface NewChannel {
  name: string;
  description?: string;
  type: string;
  config?: unknown;
  /** Kept from where the channel was made first (a Message Nest import); else now. */
  createdAt?: Date;
  updatedAt?: Date;
}

/**
 * A channel as answers carry it: its kind's config, masked (times as Dates, which the envelope
 * writes as ISO text).
 */
export type ChannelDto = {
  [K in ChannelKind]: Omit<Extract<ChannelAnswer, { type: K }>, 'createdAt' | 'updatedAt'> & {
    createdAt: Date;
    updatedAt: Date;
  };
}[ChannelKind];

/** What ChannelService uses of the composed parts. */
export type ChannelServiceDeps = Pick<
  HeraldParts,
  'registry' | 'secrets' | 'sequelize' | 'writeLock' | 'clock' | 'adapterRuntime'
>;

export class ChannelService {
  /** Decrypted, parsed configs for the dispatcher; dropped whenever a channel changes. */
  private readonly runtimeCache = new Map<number, { type: string; config: unknown }>();
  /**
   * The configuration version the cache was filled at: another process (PostgreSQL) or the
   * delivery thread's parent changed a channel when it moved, and the cache is dropped.
   */
  private runtimeCacheVersion = configVersion();

  /** The kinds' descriptions, made once: they follow from the adapters alone. */
  private kinds: ChannelType[] | undefined;

  constructor(private readonly deps: ChannelServiceDeps) {}

  adapter(type: string): AnyChannelAdapter {
    const adapter = adapterFor(this.deps.registry, type);
    if (!adapter) {
      throw new AppError(
        400,
        `type: unknown channel type "${type}"; one of ${Object.keys(this.deps.registry).join(', ')}`,
      );
    }
    return adapter;
  }

  /** The kinds as GET /channel-types serves them, each with its config's fields and notes. */
  channelTypes(): ChannelType[] {
    const kinds = (this.kinds ??= Object.values(this.deps.registry).map((a) => ({
      type: a.type,
      label: a.label,
      ...CHANNEL_KIND_GROUPS[a.type],
      summary: channelSummaryKey(a.type),
      contentTypes: [...a.contentTypes],
      supportsMentions: a.supportsMentions,
      supportsDynamicRecipients: a.supportsDynamicRecipients,
      fixedRecipient: a.fixedRecipient,
      instanceTemplateCode: a.instanceTemplateCode !== undefined,
      secretFields: [...a.secretFields],
      destinationFields: [...a.destinationFields],
      ...describeChannelConfig(a.declaration),
    })));
    return kinds;
  }

  private validateConfig(adapter: AnyChannelAdapter, config: unknown): Record<string, unknown> {
    const result = adapter.configSchema.safeParse(config ?? {});
    if (!result.success) throw new AppError(400, `config: ${describeIssues(result.error)}`);
    return result.data as Record<string, unknown>;
  }

  async usedBy(channelIds: number[]): Promise<Map<number, ChannelUse[]>> {
    const uses = new Map<number, ChannelUse[]>();
    if (channelIds.length === 0) return uses;
    const instances = await Instance.findAll({ where: { channelId: { [Op.in]: channelIds } } });
    const taskIds = [
      ...new Set(instances.map((i) => i.taskId).filter((x): x is number => x !== null)),
    ];
    const templateIds = [
      ...new Set(instances.map((i) => i.templateId).filter((x): x is number => x !== null)),
    ];
    const tasks = new Map(
      (await Task.findAll({ where: { id: taskIds } })).map((t) => [t.id, t.name]),
    );
    const templates = new Map(
      (await Template.findAll({ where: { id: templateIds } })).map((t) => [t.id, t.name]),
    );
    for (const inst of instances) {
      const list = uses.get(inst.channelId) ?? [];
      const use: ChannelUse | null =
        inst.taskId !== null
          ? { kind: 'task', id: inst.taskId, name: tasks.get(inst.taskId) ?? '' }
          : inst.templateId !== null
            ? { kind: 'template', id: inst.templateId, name: templates.get(inst.templateId) ?? '' }
            : null;
      if (use && !list.some((u) => u.kind === use.kind && u.id === use.id)) list.push(use);
      uses.set(inst.channelId, list);
    }
    return uses;
  }

  /**
   * The channel as answers carry it. Its config was parsed by its kind's schema when it was
   * saved, so it has that kind's fields; secrets are masked.
   */
  toDto(channel: Channel, uses: ChannelUse[] = []): ChannelDto {
    const adapter = adapterFor(this.deps.registry, channel.type);
    return {
      id: channel.id,
      name: channel.name,
      description: channel.description,
      type: channel.type,
      config: maskProxy(
        maskSecrets(openProxy(channel.config, this.deps.secrets), adapter?.secretFields ?? []),
      ),
      usedBy: uses,
      createdAt: channel.createdAt,
      updatedAt: channel.updatedAt,
    } as ChannelDto;
  }

  async list(filter: { type?: string; q?: string }) {
    const where: WhereOptions = {};
    if (filter.type) Object.assign(where, { type: filter.type });
    if (filter.q)
      Object.assign(where, {
        [Op.and]: [containsAny(this.deps.sequelize, ['name', 'description'], filter.q)],
      });
    const channels = await Channel.findAll({ where, order: [['id', 'ASC']] });
    const uses = await this.usedBy(channels.map((c) => c.id));
    return channels.map((c) => this.toDto(c, uses.get(c.id)));
  }

  async get(id: number): Promise<Channel> {
    const channel = await Channel.findByPk(id);
    if (!channel) throw notFound(`channel ${id} does not exist`);
    return channel;
  }

  async getDto(id: number) {
    const channel = await this.get(id);
    return this.toDto(channel, (await this.usedBy([id])).get(id));
  }

  /** Validates, seals the secrets and stores a channel; in the caller's transaction if given. */
  async create(input: NewChannel, tx?: CallerTx) {
    const adapter = this.adapter(input.type);
    const config = this.validateConfig(adapter, input.config);
    const channel = await joinOrTransact(this.deps.writeLock, tx, ({ transaction }) =>
      Channel.create(
        {
          name: input.name,
          description: input.description ?? '',
          type: input.type,
          config: this.seal(adapter, config),
          ...(input.createdAt ? { createdAt: input.createdAt } : {}),
          ...(input.updatedAt ? { updatedAt: input.updatedAt } : {}),
        },
        // Without `silent`, Sequelize would stamp updatedAt with the present.
        { transaction, silent: input.updatedAt !== undefined },
      ),
    );
    return this.toDto(channel);
  }

  async update(id: number, input: ChannelUpdate) {
    const channel = await this.get(id);
    const type = 'type' in input ? input.type : undefined;
    if (type !== undefined && type !== channel.type) {
      throw new AppError(400, "type: a channel's type cannot change; create a new channel instead");
    }
    const adapter = this.adapter(channel.type);
    const patch: Partial<{ name: string; description: string; config: Record<string, unknown> }> =
      {};
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.config !== undefined) {
      const edit: Record<string, unknown> = input.config;
      patch.config = this.seal(adapter, this.applyConfigEdit(channel, adapter, edit));
    }
    await this.deps.writeLock.run(() => channel.update(patch));
    this.runtimeCache.delete(id);
    return this.getDto(id);
  }

  private seal(adapter: AnyChannelAdapter, config: Record<string, unknown>) {
    return sealProxy(
      sealSecrets(config, adapter.secretFields, this.deps.secrets),
      this.deps.secrets,
    );
  }

  private open(adapter: AnyChannelAdapter, config: Record<string, unknown>) {
    return openProxy(
      openSecrets(config, adapter.secretFields, this.deps.secrets),
      this.deps.secrets,
    );
  }

  /**
   * A console edit of a stored channel's config, in clear and validated: masked secrets are
   * taken from storage, unless the edit points the channel to a new destination (then 400).
   */
  private applyConfigEdit(
    channel: Channel,
    adapter: AnyChannelAdapter,
    edit: Record<string, unknown>,
  ): Record<string, unknown> {
    const stored = this.open(adapter, channel.config);
    const kept = keptSecrets(stored, edit, adapter.secretFields);
    const merged = mergeProxyEdit(stored, mergeSecretEdits(stored, edit, adapter.secretFields));
    const config = this.validateConfig(adapter, merged);
    const before = adapter.configSchema.safeParse(stored);
    assertSecretsFollowDestination(
      adapter,
      before.success ? (before.data as Record<string, unknown>) : stored,
      config,
      kept,
    );
    return config;
  }

  async remove(id: number): Promise<void> {
    const channel = await this.get(id);
    const uses = (await this.usedBy([id])).get(id) ?? [];
    if (uses.length > 0) {
      const names = uses
        .map((u) => `${u.kind === 'task' ? 'task' : 'template'} "${u.name}" (id ${u.id})`)
        .join(', ');
      throw conflict(`channel "${channel.name}" is used by ${names}; remove those instances first`);
    }
    await this.deps.writeLock.run(() => channel.destroy());
    this.runtimeCache.delete(id);
  }

  /** The dispatcher's view of a channel: type and decrypted, parsed config. */
  async loadRuntime(id: number): Promise<{ type: string; config: unknown } | null> {
    if (this.runtimeCacheVersion !== configVersion()) {
      this.runtimeCache.clear();
      this.runtimeCacheVersion = configVersion();
    }
    const cached = this.runtimeCache.get(id);
    if (cached) return cached;
    const channel = await Channel.findByPk(id);
    if (!channel) return null;
    const adapter = adapterFor(this.deps.registry, channel.type);
    if (!adapter) return { type: channel.type, config: channel.config };
    const clear = this.open(adapter, channel.config);
    const parsed = adapter.configSchema.safeParse(clear);
    const runtime = { type: channel.type, config: parsed.success ? parsed.data : clear };
    // A change committed while the row was read would be lost if this were kept.
    if (this.runtimeCacheVersion === configVersion()) this.runtimeCache.set(id, runtime);
    return runtime;
  }

  /**
   * Sends one real message through the channel, outside the queue, and reports the platform's
   * answer. With `config`, it tries an unsaved edit instead, under the same rules as saving it.
   */
  async test(id: number, input: TestMessage & { config?: Record<string, unknown> }) {
    const channel = await this.get(id);
    const adapter = this.adapter(channel.type);
    const runtime =
      input.config !== undefined
        ? { type: channel.type, config: this.applyConfigEdit(channel, adapter, input.config) }
        : await this.loadRuntime(id);
    if (!runtime) throw notFound(`channel ${id} does not exist`);
    return this.sendTest(adapter, runtime.config as Record<string, unknown>, id, input);
  }

  /**
   * Sends one real message through a channel that is not saved yet (the new-channel form), its
   * config checked as a create checks it. It has no id: a hosted test message has no channel.
   */
  async testUnsaved(input: TestMessage & { type: string; config?: unknown }) {
    const adapter = this.adapter(input.type);
    return this.sendTest(adapter, this.validateConfig(adapter, input.config), 0, input);
  }

  /** The test message itself; the answer's reply and error never hold the config's secrets. */
  private async sendTest(
    adapter: AnyChannelAdapter,
    config: Record<string, unknown>,
    channelId: number,
    input: TestMessage,
  ) {
    let recipient: string | null = null;
    if (adapter.fixedRecipient === 'required') {
      recipient = input.recipient?.trim() ?? '';
      if (!recipient)
        throw new AppError(400, `recipient: a ${adapter.label} test needs a recipient`);
      const problem = adapter.validateRecipient?.(recipient);
      if (problem) throw new AppError(400, `recipient: ${problem}`);
    }
    const contentType: ContentType = adapter.contentTypes.includes('markdown')
      ? 'markdown'
      : (adapter.contentTypes[0] ?? 'text');
    const text =
      input.content ?? 'This is a test message from Herald. 这是一条来自 Herald 的测试消息。';
    const secrets = secretValues(config, adapter.secretFields);
    try {
      const receipt = await adapter.send(
        config,
        {
          // Negative ids mark test sends: they have no delivery row.
          deliveryId: -this.deps.clock.now(),
          channelId,
          title: input.title ?? 'Herald test message',
          content: convertContent(text, 'markdown', contentType),
          contentType,
          url: null,
          recipient,
          mentions: noMentions(),
          // A test send shows the channel as it is: its own default priority.
          priority: null,
          repeats: 0,
        },
        this.deps.adapterRuntime,
      );
      return { ok: true, reply: redactSecrets(receipt.reply, secrets), error: null };
    } catch (err) {
      const de = err instanceof DeliveryError ? err : null;
      return {
        ok: false,
        reply: redactSecrets(de?.reply ?? null, secrets),
        error: redactSecrets(errorMessage(err), secrets),
      };
    }
  }
}
