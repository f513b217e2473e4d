import { QueryTypes } from 'sequelize';

import type { RemoteImageChoices, SourceKind } from '../../../contract/console/image-proxy';
import { notFound } from '../../lib/errors';
import type { HeraldParts } from '../../parts';

/** What RemoteImageChoiceService uses of the composed parts. */
export type RemoteImageChoiceDeps = Pick<HeraldParts, 'sequelize' | 'writeLock' | 'settings'>;

type Scope = 'always' | 'message' | SourceKind;

interface ChoiceRow {
  scope: Scope;
  target_id: number;
  show: boolean | number;
}

/** The source a hosted message came through, when its send is still in the log. */
export interface MessageSource {
  kind: SourceKind;
  id: number;
}

/** What the reader needs to decide, for one person and one message. */
export interface MessageImageChoice {
  /** Load this message's remote images (through the proxy) without asking. */
  show: boolean;
  /** This person chose to show this message's images. */
  message: boolean;
  /** The message's source, or null when unknown (no send left for it). */
  source: (MessageSource & { chosen: boolean }) | null;
  /** This person's "always": null follows the install's default. */
  always: boolean | null;
}

const bool = (v: boolean | number): boolean => v === true || v === 1;

/**
 * Each person's choices about remote images in the reader (migration
 * 2026-12-02-1200-remote-image-choices): always/never/as the install says, per message, and
 * per source (task or template). The administrator's `showRemoteImages` stays the install's
 * default, which a person's own "always" overrides.
 */
export class RemoteImageChoiceService {
  constructor(private readonly deps: RemoteImageChoiceDeps) {}

  async choices(userId: number): Promise<RemoteImageChoices> {
    const rows = await this.rows(userId, ['always', 'task', 'template']);
    const always = rows.find((r) => r.scope === 'always');
    return {
      always: always ? bool(always.show) : null,
      installDefault: this.deps.settings.get().showRemoteImages,
      sources: rows
        .filter((r) => r.scope !== 'always' && bool(r.show))
        .map((r) => ({ kind: r.scope as SourceKind, id: Number(r.target_id) })),
    };
  }

  async setAlways(userId: number, always: boolean | null): Promise<RemoteImageChoices> {
    if (always === null) await this.remove(userId, 'always', 0);
    else await this.upsert(userId, 'always', 0, always);
    return this.choices(userId);
  }

  async setMessage(userId: number, messageId: number, show: boolean): Promise<{ show: boolean }> {
    await this.mustExist('hosted_messages', messageId, `message ${messageId} does not exist`);
    if (show) await this.upsert(userId, 'message', messageId, true);
    else await this.remove(userId, 'message', messageId);
    return { show };
  }

  async setSource(
    userId: number,
    kind: SourceKind,
    id: number,
    show: boolean,
  ): Promise<RemoteImageChoices> {
    await this.mustExist(
      kind === 'task' ? 'tasks' : 'templates',
      id,
      `${kind} ${id} does not exist`,
    );
    if (show) await this.upsert(userId, kind, id, true);
    else await this.remove(userId, kind, id);
    return this.choices(userId);
  }

  /** Whether `userId` sees message `messageId`'s remote images without asking, and why. */
  async forMessage(userId: number, messageId: number): Promise<MessageImageChoice> {
    const source = await this.sourceOf(messageId);
    const rows = await this.deps.sequelize.query<ChoiceRow>(
      `SELECT scope, target_id, show FROM remote_image_choices
       WHERE user_id = :userId AND (
         (scope = 'always' AND target_id = 0) OR (scope = 'message' AND target_id = :messageId)
         OR (scope = :sourceKind AND target_id = :sourceId))`,
      {
        type: QueryTypes.SELECT,
        replacements: {
          userId,
          messageId,
          sourceKind: source?.kind ?? 'none',
          sourceId: source?.id ?? 0,
        },
      },
    );
    const find = (scope: Scope) => rows.find((r) => r.scope === scope);
    const alwaysRow = find('always');
    const always = alwaysRow ? bool(alwaysRow.show) : null;
    const message = find('message') !== undefined;
    const sourceChosen = source !== null && find(source.kind) !== undefined;
    const byDefault = always ?? this.deps.settings.get().showRemoteImages;
    return {
      show: byDefault || message || sourceChosen,
      message,
      source: source ? { ...source, chosen: sourceChosen } : null,
      always,
    };
  }

  /** The task or template whose send stored the message (null once the send is pruned). */
  private async sourceOf(messageId: number): Promise<MessageSource | null> {
    const rows = await this.deps.sequelize.query<{
      task_id: number | null;
      template_id: number | null;
    }>(
      `SELECT s.task_id, s.template_id FROM hosted_messages m
       JOIN deliveries d ON d.id = m.delivery_id JOIN sends s ON s.id = d.send_id
       WHERE m.id = :messageId`,
      { type: QueryTypes.SELECT, replacements: { messageId } },
    );
    const row = rows[0];
    if (row?.template_id != null) return { kind: 'template', id: Number(row.template_id) };
    if (row?.task_id != null) return { kind: 'task', id: Number(row.task_id) };
    return null;
  }

  private rows(userId: number, scopes: Scope[]): Promise<ChoiceRow[]> {
    return this.deps.sequelize.query<ChoiceRow>(
      `SELECT scope, target_id, show FROM remote_image_choices
       WHERE user_id = :userId AND scope IN (:scopes) ORDER BY scope, target_id`,
      { type: QueryTypes.SELECT, replacements: { userId, scopes } },
    );
  }

  private async mustExist(table: string, id: number, message: string): Promise<void> {
    const rows = await this.deps.sequelize.query(`SELECT 1 AS one FROM ${table} WHERE id = :id`, {
      type: QueryTypes.SELECT,
      replacements: { id },
    });
    if (rows.length === 0) throw notFound(message);
  }

  private upsert(userId: number, scope: Scope, targetId: number, show: boolean): Promise<void> {
    return this.deps.writeLock.run(async ({ transaction }) => {
      await this.deps.sequelize.query(
        `INSERT INTO remote_image_choices (user_id, scope, target_id, show)
         VALUES (:userId, :scope, :targetId, :show)
         ON CONFLICT (user_id, scope, target_id) DO UPDATE SET show = excluded.show`,
        { replacements: { userId, scope, targetId, show }, transaction },
      );
    });
  }

  private remove(userId: number, scope: Scope, targetId: number): Promise<void> {
    return this.deps.writeLock.run(async ({ transaction }) => {
      await this.deps.sequelize.query(
        `DELETE FROM remote_image_choices
         WHERE user_id = :userId AND scope = :scope AND target_id = :targetId`,
        { replacements: { userId, scope, targetId }, transaction },
      );
    });
  }
}
