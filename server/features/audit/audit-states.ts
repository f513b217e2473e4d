import { createHash } from 'node:crypto';

import { adapterFor } from '../../channels/registry';
import { SecretBox } from '../../crypto/secret-box';
import {
  Channel,
  HostedMessage,
  Instance,
  Schedule,
  Setting,
  Task,
  Template,
  User,
} from '../../db/models';
import type { HeraldParts } from '../../parts';
import { openSecrets } from '../channel-config/channel-secrets';
import { scheduleDto } from '../schedules/schedule-service';
import { maskProxy, openProxy } from '../channel-config/proxy-credentials';
import type { AuditState } from './audit-diff';

/** A secret's fingerprint, for comparing in memory only; null when it is not set. */
function fingerprint(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  return createHash('sha256').update(JSON.stringify(value)).digest('base64');
}

/** The name of a task or template a row refers to, keyed as the audit entry keeps names. */
async function sourceNames(
  taskId: number | null | undefined,
  templateId: number | null | undefined,
): Promise<Record<string, string>> {
  if (taskId) {
    const task = await Task.findByPk(taskId);
    return task ? { [`task:${task.id}`]: task.name } : {};
  }
  if (templateId) {
    const template = await Template.findByPk(templateId);
    return template ? { [`template:${template.id}`]: template.name } : {};
  }
  return {};
}

/** What the audit states read with. */
export type AuditStatesDeps = Pick<HeraldParts, 'registry' | 'secrets' | 'settings'>;

/**
 * Each audited target's state, read as committed (the read connection), by id. The secrets are
 * opened first: sealing takes a fresh nonce each time, so only the clear value tells whether a
 * secret really changed (re-saving a channel re-seals secrets it kept).
 */
export class AuditStates {
  constructor(private readonly deps: AuditStatesDeps) {}

  async channel(id: number): Promise<AuditState | null> {
    const channel = await Channel.findByPk(id);
    if (!channel) return null;
    const secretFields = adapterFor(this.deps.registry, channel.type)?.secretFields ?? [];
    const open = openProxy(
      openSecrets(channel.config, secretFields, this.deps.secrets),
      this.deps.secrets,
    );
    const shown: Record<string, unknown> = maskProxy(open);
    const secrets: Record<string, string | null> = {};
    for (const field of secretFields) {
      secrets[`config.${field}`] = fingerprint(open[field]);
      delete shown[field];
    }
    // A proxy with credentials is shown masked, its host still visible; the whole URL is the secret.
    if (SecretBox.isSealed(channel.config.proxy) || shown.proxy !== open.proxy) {
      secrets['config.proxy'] = fingerprint(open.proxy);
    }
    return {
      name: channel.name,
      fields: {
        name: channel.name,
        description: channel.description,
        type: channel.type,
        config: shown,
      },
      secrets,
    };
  }

  async task(id: number): Promise<AuditState | null> {
    const task = await Task.findByPk(id);
    if (!task) return null;
    return {
      name: task.name,
      fields: { name: task.name, acceptLegacyToken: task.acceptLegacyToken },
      // The token is derived from its generation: a rotation is the generation's change.
      secrets: { token: String(task.tokenGeneration) },
    };
  }

  async template(id: number): Promise<AuditState | null> {
    const t = await Template.findByPk(id);
    if (!t) return null;
    return {
      name: t.name,
      fields: {
        name: t.name,
        description: t.description,
        enabled: t.enabled,
        placeholders: t.placeholders,
        text: t.text ?? null,
        html: t.html ?? null,
        markdown: t.markdown ?? null,
        atMobiles: t.atMobiles,
        atUserIds: t.atUserIds,
        atAll: t.atAll,
        acceptLegacyToken: t.acceptLegacyToken,
      },
      secrets: {
        token: String(t.tokenGeneration),
        hookSecret: fingerprint(t.hookSecret ? this.deps.secrets.open(t.hookSecret) : null),
      },
    };
  }

  async instance(id: number): Promise<AuditState | null> {
    const inst = await Instance.findByPk(id);
    if (!inst) return null;
    const channel = await Channel.findByPk(inst.channelId);
    return {
      // "linked template Nightly to channel Ops": both named as they are now.
      names: {
        ...(channel ? { [`channel:${channel.id}`]: channel.name } : {}),
        ...(await sourceNames(inst.taskId, inst.templateId)),
      },
      name: channel?.name ?? null,
      fields: {
        taskId: inst.taskId,
        templateId: inst.templateId,
        channelId: inst.channelId,
        contentType: inst.contentType,
        enabled: inst.enabled,
        recipient: inst.recipient,
        dynamicRecipients: inst.dynamicRecipients,
        atMobiles: inst.atMobiles,
        atAll: inst.atAll,
        templateCode: inst.templateCode ?? null,
        publicLink: inst.publicLink,
      },
      secrets: {},
    };
  }

  async schedule(id: number): Promise<AuditState | null> {
    const s = await Schedule.findByPk(id);
    if (!s) return null;
    // What the console edits, not what running it changes (next and last run, the last send).
    const {
      id: _id,
      sourceName: _source,
      nextRunAt: _next,
      lastRunAt: _last,
      lastSendId: _sendId,
      lastError: _error,
      createdAt: _created,
      updatedAt: _updated,
      ...fields
    } = scheduleDto(s, null);
    return { name: s.name, fields, secrets: {}, names: await sourceNames(s.taskId, s.templateId) };
  }

  /** A hosted message: only what the console changes of it (its share link is a secret). */
  async message(id: number): Promise<AuditState | null> {
    const m = await HostedMessage.findByPk(id);
    if (!m) return null;
    return {
      name: m.title,
      fields: { title: m.title },
      secrets: { shareLink: fingerprint(m.previewKey) },
    };
  }

  /** An account: its role and state; its password and invite link only as "changed". */
  async user(id: number): Promise<AuditState | null> {
    const u = await User.findByPk(id);
    if (!u) return null;
    return {
      name: u.username,
      fields: {
        username: u.username,
        role: u.role,
        disabled: u.disabled,
        twoFactor: u.totpSecret !== null,
      },
      secrets: {
        password: fingerprint(u.passwordHash),
        inviteLink: fingerprint(u.inviteHash),
        recoveryCodes: fingerprint(u.recoveryCodes),
      },
    };
  }

  /** The backup schedule as saved (nothing before its first save: the defaults apply). */
  async backupSchedule(): Promise<AuditState> {
    const row = await Setting.findByPk('backup-schedule');
    const saved = (row?.value ?? {}) as Record<string, unknown>;
    return { name: 'backup schedule', fields: { ...saved }, secrets: {} };
  }

  settings(): AuditState {
    return { name: 'settings', fields: { ...this.deps.settings.get() }, secrets: {} };
  }
}
