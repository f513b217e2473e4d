import { Op } from 'sequelize';

import { SECRET_MASK } from '../channel-config/channel-secrets';
import { Instance, Template } from '../../db/models';
import type { PlaceholderDefinition } from '../../db/models/template';
import { containsAny } from '../../db/search';
import { splitList } from '../../domain/lists';
import { fillPlaceholders, normalisePlaceholderValues } from '../../domain/placeholders';
import { notFound } from '../../lib/errors';
import { pageOf, type Paging } from '../../lib/paging';
import type { HeraldParts } from '../../parts';
import type { InstanceService } from './instance-service';
import { messageNestFields, nameTaken, noMessageNestToken } from './task-service';
import type { PreviewInput, TemplatePatch } from '../../../contract';

const tidyList = (v: string | undefined) => (v === undefined ? undefined : splitList(v).join(','));

/** What TemplateService uses of the composed parts. */
export type TemplateServiceDeps = Pick<
  HeraldParts,
  'sequelize' | 'writeLock' | 'tokens' | 'secrets'
>;

export class TemplateService {
  constructor(
    private readonly deps: TemplateServiceDeps,
    private readonly instances: InstanceService,
  ) {}

  toDto(t: Template, instanceCount: number) {
    return {
      id: t.id,
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
      instanceCount,
      // Write-only, like a channel's secrets: the console learns only whether one is set.
      hookSecret: t.hookSecret ? SECRET_MASK : '',
      ...messageNestFields(t),
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
    };
  }

  async list(name: string | undefined, paging: Paging) {
    const where = name ? { [Op.and]: [containsAny(this.deps.sequelize, ['name'], name)] } : {};
    const { rows, count } = await Template.findAndCountAll({
      where,
      order: [['id', 'DESC']],
      limit: paging.pageSize,
      offset: paging.offset,
    });
    const counted = await Instance.count({
      where: { templateId: rows.map((t) => t.id) },
      group: ['templateId'],
    });
    const counts = new Map(counted.map((r) => [Number(r.templateId), Number(r.count)]));
    return pageOf(
      rows.map((t) => this.toDto(t, counts.get(t.id) ?? 0)),
      count,
      paging,
    );
  }

  async get(id: number): Promise<Template> {
    const t = await Template.findByPk(id);
    if (!t) throw notFound(`template ${id} does not exist`);
    return t;
  }

  async detail(id: number) {
    const t = await this.get(id);
    const instances = await this.instances.listFor({ kind: 'template', id });
    return { ...this.toDto(t, instances.length), instances };
  }

  async create(input: TemplatePatch & { name: string }) {
    if (input.acceptLegacyToken) throw noMessageNestToken('template');
    const t = await this.deps.writeLock.run(() =>
      Template.create({
        ...input,
        atMobiles: tidyList(input.atMobiles),
        atUserIds: tidyList(input.atUserIds),
        // A new template has nothing to keep: the mask sets no secret.
        hookSecret: this.sealedHookSecret(input.hookSecret, null),
      }).catch(nameTaken(input.name)),
    );
    return this.toDto(t, 0);
  }

  async update(id: number, patch: TemplatePatch) {
    const t = await this.get(id);
    if (patch.acceptLegacyToken && !t.legacyId) throw noMessageNestToken('template');
    const values: TemplatePatch = { ...patch };
    if (patch.atMobiles !== undefined) values.atMobiles = tidyList(patch.atMobiles);
    if (patch.atUserIds !== undefined) values.atUserIds = tidyList(patch.atUserIds);
    const { hookSecret, ...rest } = values;
    const update = { ...rest, hookSecret: this.sealedHookSecret(hookSecret, t.hookSecret) };
    await this.deps.writeLock.run(() => t.update(update).catch(nameTaken(patch.name ?? t.name)));
    return this.detail(id);
  }

  /** The hook secret a template sends with, in clear; null when it has none. */
  openHookSecret(t: Pick<Template, 'hookSecret'>): string | null {
    return t.hookSecret ? this.deps.secrets.open(t.hookSecret) : null;
  }

  /**
   * A hook secret as the console edited it, as stored: the mask or a left-out field keeps
   * `stored`, "" or null clears it, anything else is sealed (channel secrets' rules,
   * features/channel-config/channel-secrets.ts).
   */
  private sealedHookSecret(edit: string | null | undefined, stored: string | null): string | null {
    if (edit === undefined || edit === SECRET_MASK) return stored;
    if (edit === null || edit === '') return null;
    return this.deps.secrets.seal(edit);
  }

  async remove(id: number): Promise<void> {
    const t = await this.get(id);
    await this.deps.writeLock.run(() => t.destroy());
  }

  async token(id: number): Promise<string> {
    const t = await this.get(id);
    return this.deps.tokens.encode({ kind: 'template', id: t.id, generation: t.tokenGeneration });
  }

  async rotateToken(id: number): Promise<string> {
    const t = await this.get(id);
    await this.deps.writeLock.run(() => t.update({ tokenGeneration: t.tokenGeneration + 1 }));
    return this.deps.tokens.encode({ kind: 'template', id: t.id, generation: t.tokenGeneration });
  }

  /** Renders the three bodies as a send would, for the editor's live preview. */
  preview(
    stored: {
      placeholders: PlaceholderDefinition[];
      text: string | null;
      html: string | null;
      markdown: string | null;
    },
    input: PreviewInput,
  ) {
    const definitions = input.definitions ?? stored.placeholders;
    const values = normalisePlaceholderValues(input.placeholders);
    const text = input.text !== undefined ? input.text : stored.text;
    const html = input.html !== undefined ? input.html : stored.html;
    const markdown = input.markdown !== undefined ? input.markdown : stored.markdown;
    return {
      text: text ? fillPlaceholders(text, definitions, values, 'text') : null,
      html: html ? fillPlaceholders(html, definitions, values, 'html') : null,
      markdown: markdown ? fillPlaceholders(markdown, definitions, values, 'markdown') : null,
    };
  }
}
