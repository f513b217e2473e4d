import type { AnyChannelAdapter, ContentType, Mentions } from '../../channels/channel-adapter';
import { noMentions } from '../../channels/channel-adapter';
import { adapterFor } from '../../channels/registry';
import { decodeMessageNestToken } from '../../crypto/message-nest-token';
import { TokenError, type TokenKind } from '../../crypto/tokens';
import { configVersion } from '../../db/config-version';
import { Channel, Instance, Task, Template } from '../../db/models';
import type { SendCredential } from '../../db/models/send';
import { chooseContent, hasAnyBody, type Bodies } from '../../domain/content-format';
import { splitList } from '../../domain/lists';
import { newPreviewKey } from '../../domain/preview-keys';
import { LIMITS } from '../../config/settings-schema';
import {
  filledLength,
  fillPlaceholders,
  normalisePlaceholderValues,
} from '../../domain/placeholders';
import { AppError } from '../../lib/errors';
import type { HeraldParts } from '../../parts';
import type { AttemptResult } from '../../queue/dispatcher';
import { shareLinkOf } from '../hosted/share-links';
import type { V1Request, V2Request } from './send-schemas';

/** The contract's V2 msg strings, verbatim. */
export const V2_MSG = {
  tokenParseFailed: 'token解析失败',
  templateNotFound: '模板不存在',
  templateDisabled: '模板已禁用',
  noInstances: '模板没有配置发送实例',
  noEnabledInstances: '模板没有启用的发送实例',
} as const;

interface Target {
  instance: Instance;
  channel: Channel;
  adapter: AnyChannelAdapter;
}

interface PlannedDelivery {
  target: Target;
  contentType: ContentType;
  content: string;
  recipient: string | null;
  mentions: Mentions;
  /** Hosted deliveries: the share-link key, chosen now so the answer can carry the link. */
  previewKey: string | null;
}

/** A delivery as the V1 answer names it. */
export interface AcceptedDelivery {
  id: number;
  instanceId: number | null;
  channelId: number;
  channelType: string;
  recipient: string | null;
  /** A hosted delivery stored with the accept: its attempt, already recorded. */
  stored?: AttemptResult;
}

export interface SendResponse {
  code: number;
  msg: string;
  data: unknown;
}

/** A task or template a caller's credential opened, before anything is sent. */
export interface ResolvedSource<T> {
  source: T;
  targets: CachedSource<T>['targets'];
  /** The rate budget: every credential of one task (or template) shares it. */
  rateKey: string;
  /** The credential itself (a token's object and generation, or a task_id), for idempotency. */
  credential: string;
  /** Which kind of credential it was, recorded on the send for the log. */
  credentialKind: SendCredential;
}

/**
 * A send Herald makes itself rather than an API caller: a schedule's run. The send row is
 * linked to the schedule, and `stored` learns its id (V2's answer does not carry it).
 */
export interface SendOrigin {
  scheduleId: number;
  stored?(sendId: number): void;
}

const uniq = (list: string[]) => [...new Set(list.filter((s) => s.length > 0))];

interface CachedSource<T> {
  version: number;
  source: T | null;
  targets: { all: number; enabled: Target[] };
}

/** What SendService uses of the composed parts. */
export type SendServiceDeps = Pick<
  HeraldParts,
  'deliveries' | 'dispatcher' | 'registry' | 'settings' | 'tokens' | 'listenUrl'
>;

export class SendService {
  /** Lookups per task and template, valid while the configuration version stands still. */
  private readonly tasks = new Map<number, CachedSource<Task>>();
  private readonly templates = new Map<number, CachedSource<Template>>();

  constructor(private readonly deps: SendServiceDeps) {}

  private async lookup<T>(
    cache: Map<number, CachedSource<T>>,
    id: number,
    load: () => Promise<T | null>,
    where: { taskId: number } | { templateId: number },
  ): Promise<CachedSource<T>> {
    const version = configVersion();
    const hit = cache.get(id);
    if (hit && hit.version === version) return hit;
    const source = await load();
    const entry = {
      version,
      source,
      targets: source ? await this.targets(where) : { all: 0, enabled: [] },
    };
    // Only a lookup that no write overtook is kept.
    if (configVersion() === version) {
      if (cache.size > 1000) cache.clear();
      cache.set(id, entry);
    }
    return entry;
  }

  private lookupTask(id: number) {
    return this.lookup(this.tasks, id, () => Task.findByPk(id), { taskId: id });
  }

  private lookupTemplate(id: number) {
    return this.lookup(this.templates, id, () => Template.findByPk(id), { templateId: id });
  }

  // ---- V1 -------------------------------------------------------------------------------

  async sendV1(
    req: V1Request,
    resolved: ResolvedSource<Task>,
    origin?: SendOrigin,
  ): Promise<SendResponse> {
    const { source: task, targets } = resolved;
    const bodies: Bodies = { text: req.text, html: req.html, markdown: req.markdown };
    if (!hasAnyBody(bodies))
      throw new AppError(400, 'text, html, markdown: at least one must be given');
    if (targets.all === 0)
      throw new AppError(400, `task "${task.name}" has no instances; add one in the console`);
    if (targets.enabled.length === 0)
      throw new AppError(400, `task "${task.name}" has no enabled instances`);
    const recipients = this.checkRecipients(targets.enabled, req.recipients);
    const requestMentions: Mentions = {
      mobiles: req.at_mobiles ?? [],
      userIds: [...(req.at_userids ?? []), ...(req.at_user_ids ?? [])],
      all: req.at_all ?? false,
    };
    const planned = this.plan(targets.enabled, bodies, recipients, requestMentions);
    const host = this.hostMessageUrl(planned);
    const { send, deliveries } = await this.store({
      api: 'v1',
      taskId: task.id,
      templateId: null,
      sourceName: task.name,
      title: req.title,
      bodies,
      url: req.url ?? null,
      request: redact(req),
      planned,
      origin,
      credential: resolved.credentialKind,
    });
    if (req.mode === 'async') {
      return { code: 200, msg: 'success', data: { status: 'queued', sendId: send.id, ...host } };
    }
    const waiting = deliveries.filter((d) => !d.stored);
    const results =
      waiting.length > 0
        ? await this.deps.dispatcher.waitForAttempts(
            waiting.map((d) => d.id),
            this.deps.settings.get().v1WaitMs,
          )
        : new Map<number, AttemptResult>();
    for (const d of deliveries) if (d.stored) results.set(d.id, d.stored);
    const answer = summariseV1(send.id, deliveries, results);
    return answer.code === 200
      ? { ...answer, data: { ...(answer.data as object), ...host } }
      : answer;
  }

  /** Opens the task a V1 request names; nothing is counted or stored for a refused one. */
  async resolveTask(req: V1Request): Promise<ResolvedSource<Task>> {
    // design.md: the token wins when both are sent.
    if (req.token) {
      let payload;
      try {
        payload = this.decode(
          req.token,
          'task',
          (reason) => new AppError(401, `token is invalid: ${reason}`),
        );
      } catch (err) {
        const legacy = await this.legacySource(Task, decodeMessageNestToken(req.token));
        if (!legacy) throw err;
        return this.resolvedTask(legacy.id, 'legacy_token');
      }
      const { source: task, targets } = await this.lookupTask(payload.id);
      if (!task) throw new AppError(404, 'token does not exist: its task was deleted');
      if (task.tokenGeneration !== payload.generation) {
        throw new AppError(
          401,
          'token is no longer valid: it was rotated; get the current token from the console',
        );
      }
      return {
        source: task,
        targets,
        rateKey: `task:${task.id}`,
        credential: `token:${task.id}.${payload.generation}`,
        credentialKind: 'token',
      };
    }
    if (req.task_id !== undefined && req.task_id !== '') {
      if (!this.deps.settings.get().allowTaskId) {
        throw new AppError(401, 'task_id is turned off in settings; send the task token instead');
      }
      const id = Number(req.task_id);
      if (!Number.isSafeInteger(id) || id <= 0) {
        const legacy = await this.legacySource(Task, String(req.task_id));
        if (legacy) return this.resolvedTask(legacy.id, 'legacy_task_id');
        throw new AppError(400, 'task_id: must be a positive integer');
      }
      const { source: task, targets } = await this.lookupTask(id);
      if (!task) throw new AppError(404, `task ${id} does not exist`);
      // Keyed on the parsed id: 1, 01, 0x1 and 1.0 are one task and one budget.
      return {
        source: task,
        targets,
        rateKey: `task:${task.id}`,
        credential: `task_id:${task.id}`,
        credentialKind: 'task_id',
      };
    }
    throw new AppError(400, 'token: is required (or task_id)');
  }

  /**
   * The imported task or template a Message Nest id names, when its administrator lets the
   * legacy credentials send; null otherwise, so the caller answers exactly as without them.
   */
  private async legacySource<T extends typeof Task | typeof Template>(
    model: T,
    legacyId: string | null,
  ): Promise<{ id: number } | null> {
    if (!legacyId) return null;
    const row = await (model as typeof Task).findOne({
      where: { legacyId, acceptLegacyToken: true },
      attributes: ['id'],
    });
    return row ? { id: row.id } : null;
  }

  private async resolvedTask(
    id: number,
    kind: 'legacy_token' | 'legacy_task_id',
  ): Promise<ResolvedSource<Task>> {
    const { source: task, targets } = await this.lookupTask(id);
    if (!task) throw new AppError(404, `task ${id} does not exist`);
    return {
      source: task,
      targets,
      rateKey: `task:${task.id}`,
      credential: `${kind}:${task.id}`,
      credentialKind: kind,
    };
  }

  // ---- V2 -------------------------------------------------------------------------------

  /** Opens the template a V2 token names: the contract's first steps (token, template). */
  async resolveTemplate(req: V2Request): Promise<ResolvedSource<Template>> {
    let payload;
    try {
      payload = this.decode(
        req.token,
        'template',
        (reason) => new AppError(400, `${V2_MSG.tokenParseFailed}: ${reason}`),
      );
    } catch (err) {
      const legacy = await this.legacySource(Template, decodeMessageNestToken(req.token));
      if (!legacy) throw err;
      const { source: template, targets } = await this.lookupTemplate(legacy.id);
      if (!template) throw new AppError(400, V2_MSG.templateNotFound);
      return {
        source: template,
        targets,
        rateKey: `template:${template.id}`,
        credential: `legacy_token:${template.id}`,
        credentialKind: 'legacy_token',
      };
    }
    const { source: template, targets } = await this.lookupTemplate(payload.id);
    if (!template) throw new AppError(400, V2_MSG.templateNotFound);
    if (template.tokenGeneration !== payload.generation) {
      throw new AppError(400, `${V2_MSG.tokenParseFailed}: 令牌已轮换 (the token was rotated)`);
    }
    return {
      source: template,
      targets,
      rateKey: `template:${template.id}`,
      credential: `token:${template.id}.${payload.generation}`,
      credentialKind: 'token',
    };
  }

  async sendV2(
    req: V2Request,
    resolved: ResolvedSource<Template>,
    origin?: SendOrigin,
  ): Promise<SendResponse> {
    // The contract's processing order: token, template (resolveTemplate), enabled,
    // placeholders, instances.
    const { source: template, targets } = resolved;
    if (!template.enabled) throw new AppError(400, V2_MSG.templateDisabled);
    const values = normalisePlaceholderValues(req.placeholders ?? {});
    checkFilledSize(template, values);
    const fill = (body: string | null, format: ContentType) =>
      body ? fillPlaceholders(body, template.placeholders, values, format) : null;
    const bodies: Bodies = {
      text: fill(template.text, 'text'),
      html: fill(template.html, 'html'),
      markdown: fill(template.markdown, 'markdown'),
    };
    if (targets.all === 0) throw new AppError(400, V2_MSG.noInstances);
    if (targets.enabled.length === 0) throw new AppError(400, V2_MSG.noEnabledInstances);
    if (!hasAnyBody(bodies)) {
      throw new AppError(
        400,
        `template "${template.name}" has no content: fill its text, HTML or Markdown body`,
      );
    }
    const recipients = this.checkRecipients(targets.enabled, req.recipients);
    const templateMentions: Mentions = {
      mobiles: splitList(template.atMobiles),
      userIds: splitList(template.atUserIds),
      all: template.atAll,
    };
    const planned = this.plan(targets.enabled, bodies, recipients, templateMentions);
    const host = this.hostMessageUrl(planned);
    await this.store({
      api: 'v2',
      taskId: null,
      templateId: template.id,
      sourceName: template.name,
      title: req.title,
      bodies,
      url: req.url ?? null,
      request: redact(req),
      planned,
      origin,
      credential: resolved.credentialKind,
    });
    return {
      code: 200,
      msg: 'success',
      data: { token: req.token, count: targets.enabled.length, ...host },
    };
  }

  // ---- shared ---------------------------------------------------------------------------

  private decode(token: string, kind: TokenKind, fail: (reason: string) => AppError) {
    try {
      return this.deps.tokens.decode(token, kind);
    } catch (err) {
      if (err instanceof TokenError) throw fail(err.message);
      throw err;
    }
  }

  private async targets(where: { taskId: number } | { templateId: number }) {
    const instances = await Instance.findAll({ where, order: [['id', 'ASC']] });
    const enabledInstances = instances.filter((i) => i.enabled);
    const channels = new Map(
      (await Channel.findAll({ where: { id: enabledInstances.map((i) => i.channelId) } })).map(
        (c) => [c.id, c],
      ),
    );
    const enabled: Target[] = [];
    for (const instance of enabledInstances) {
      const channel = channels.get(instance.channelId);
      const adapter = channel ? adapterFor(this.deps.registry, channel.type) : undefined;
      if (channel && adapter) enabled.push({ instance, channel, adapter });
    }
    return { all: instances.length, enabled };
  }

  /** Rule 3 of dynamic recipients, and each address checked before anything is queued. */
  private checkRecipients(targets: Target[], recipients: string[] | undefined): string[] {
    const dynamic = targets.filter((t) => t.instance.dynamicRecipients);
    if (dynamic.length === 0) return [];
    const list = uniq(recipients ?? []);
    if (list.length === 0) {
      throw new AppError(
        400,
        `recipients: is required because instance ${dynamic[0].instance.id} (${dynamic[0].channel.name}) sends to dynamic recipients`,
      );
    }
    for (const t of dynamic) {
      for (const r of list) {
        const problem = t.adapter.validateRecipient?.(r);
        if (problem) throw new AppError(400, `recipients: ${problem}`);
      }
    }
    return list;
  }

  /** One delivery per enabled instance (per recipient for dynamic ones), content chosen per instance. */
  private plan(
    targets: Target[],
    bodies: Bodies,
    recipients: string[],
    mentions: Mentions,
  ): PlannedDelivery[] {
    const planned: PlannedDelivery[] = [];
    for (const target of targets) {
      const chosen = chooseContent(bodies, target.instance.contentType);
      if (!chosen) continue;
      const targetMentions = this.mentionsFor(target, mentions);
      for (const recipient of this.recipientsFor(target, recipients)) {
        planned.push({
          target,
          contentType: target.instance.contentType,
          content: chosen.content,
          recipient,
          mentions: targetMentions,
          previewKey: target.channel.type === 'hosted' ? newPreviewKey() : null,
        });
      }
    }
    return planned;
  }

  /**
   * Message Nest's `hostMessageUrl`: the share link of the message the (first) hosted instance
   * will store. Valid once that delivery has run; a send with no hosted instance answers none.
   */
  private hostMessageUrl(planned: PlannedDelivery[]): { hostMessageUrl?: string } {
    const key = planned.find((p) => p.previewKey !== null)?.previewKey;
    return key ? { hostMessageUrl: shareLinkOf(this.deps, key) } : {};
  }

  private recipientsFor(target: Target, dynamic: string[]): Array<string | null> {
    if (target.instance.dynamicRecipients) return dynamic;
    if (target.adapter.fixedRecipient === 'required') return [target.instance.recipient];
    return [null];
  }

  private mentionsFor(target: Target, base: Mentions): Mentions {
    if (!target.adapter.supportsMentions) return noMentions();
    return {
      mobiles: uniq([...base.mobiles, ...splitList(target.instance.atMobiles)]),
      userIds: uniq(base.userIds),
      all: base.all || target.instance.atAll,
    };
  }

  /**
   * Commits the send and every delivery before anyone is answered; concurrent sends share one
   * commit (see DeliveryState.accept).
   */
  private async store(input: {
    api: 'v1' | 'v2';
    taskId: number | null;
    templateId: number | null;
    sourceName: string;
    title: string;
    bodies: Bodies;
    url: string | null;
    request: Record<string, unknown>;
    planned: PlannedDelivery[];
    origin?: SendOrigin;
    credential: SendCredential;
  }): Promise<{ send: { id: number }; deliveries: AcceptedDelivery[] }> {
    const { sendId, deliveryIds, stored } = await this.deps.deliveries.accept({
      send: {
        api: input.api,
        taskId: input.taskId,
        templateId: input.templateId,
        sourceName: input.sourceName,
        title: input.title,
        text: input.bodies.text ?? null,
        html: input.bodies.html ?? null,
        markdown: input.bodies.markdown ?? null,
        url: input.url,
        request: input.request,
        deliveryCount: input.planned.length,
        scheduleId: input.origin?.scheduleId ?? null,
        credential: input.credential,
      },
      deliveries: input.planned.map((p) => ({
        instanceId: p.target.instance.id,
        channelId: p.target.channel.id,
        channelType: p.target.channel.type,
        contentType: p.contentType,
        recipient: p.recipient,
        title: input.title,
        content: p.content,
        url: input.url,
        mentions: p.mentions,
        previewKey: p.previewKey,
        // Deliveries that are paused wait in the queue like every other.
        storeOnAccept: p.target.channel.type === 'hosted' && !this.deps.dispatcher.paused,
      })),
    });
    input.origin?.stored?.(sendId);
    // A send whose deliveries were all stored with it leaves the queue nothing to claim.
    if (stored.length < deliveryIds.length) this.deps.dispatcher.wake();
    const storedById = new Map(stored.map((s) => [s.deliveryId, s]));
    return {
      send: { id: sendId },
      deliveries: input.planned.map((p, i) => {
        const s = storedById.get(deliveryIds[i]);
        return {
          id: deliveryIds[i],
          instanceId: p.target.instance.id,
          channelId: p.target.channel.id,
          channelType: p.target.channel.type,
          recipient: p.recipient,
          ...(s && {
            stored: { deliveryId: s.deliveryId, status: 'sent', error: null, reply: s.reply },
          }),
        };
      }),
    };
  }
}

/**
 * Refuses a V2 send whose filled bodies would pass the limits, before any of them is built: a
 * marker repeated many times and filled with a long value multiplies the request's size.
 */
function checkFilledSize(template: Template, values: Record<string, string>): void {
  const formats: Array<[ContentType, string | null]> = [
    ['text', template.text],
    ['html', template.html],
    ['markdown', template.markdown],
  ];
  let total = 0;
  for (const [format, body] of formats) {
    if (!body) continue;
    const length = filledLength(body, template.placeholders, values, format);
    if (length > LIMITS.contentChars) {
      throw new AppError(
        400,
        `placeholders: the filled ${format} body would be ${length.toLocaleString('en-US')} characters; the limit is ${LIMITS.contentChars.toLocaleString('en-US')} per body: send shorter placeholder values or shorten the template`,
      );
    }
    total += length;
  }
  if (total > LIMITS.sendContentChars) {
    throw new AppError(
      400,
      `placeholders: the filled bodies would be ${total.toLocaleString('en-US')} characters together; the limit is ${LIMITS.sendContentChars.toLocaleString('en-US')} per send: send shorter placeholder values or shorten the template`,
    );
  }
}

/** The request as logged: the token is the credential, so only its start is kept. */
function redact(req: V1Request | V2Request): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...req };
  if (typeof copy.token === 'string') copy.token = `${copy.token.slice(0, 6)}…`;
  return copy;
}

/**
 * design.md's V1 answer: sent; partial or retrying (with per-instance results) while something
 * was delivered or will still be tried; 500 only when every delivery failed for good. A caller
 * that resent on a retrying answer would get the message twice once the platform recovers.
 */
export function summariseV1(
  sendId: number,
  deliveries: AcceptedDelivery[],
  results: Map<number, AttemptResult>,
): SendResponse {
  const rows = deliveries.map((d) => {
    const r = results.get(d.id);
    return {
      instanceId: d.instanceId,
      channelId: d.channelId,
      channelType: d.channelType,
      recipient: d.recipient,
      status: r?.status ?? 'queued',
      error: r?.error ?? null,
    };
  });
  const count = (status: string) => rows.filter((r) => r.status === status).length;
  const sent = count('sent');
  const failed = count('failed');
  const retrying = count('retrying');
  if (sent === rows.length) return { code: 200, msg: 'success', data: { status: 'sent', sendId } };
  if (failed === rows.length) {
    const reasons = rows
      .map(
        (r) =>
          `instance ${r.instanceId} (${r.channelType}${r.recipient ? ` to ${r.recipient}` : ''}): ${r.error ?? r.status}`,
      )
      .join('; ');
    return { code: 500, msg: `all deliveries failed: ${reasons}`, data: null };
  }
  // Something was delivered, or something will still be tried (queued, sending, retrying).
  let status: 'partial' | 'retrying' | 'queued';
  if (sent > 0) status = failed + retrying > 0 ? 'partial' : 'queued';
  else status = retrying > 0 ? 'retrying' : 'queued';
  return { code: 200, msg: 'success', data: { status, sendId, results: rows } };
}
