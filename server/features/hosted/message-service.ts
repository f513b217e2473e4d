import sanitizeHtml from 'sanitize-html';

import type { MessageSort } from '../../../contract/console/messages';
import type { ContentType } from '../../channels/channel-adapter';
import { HostedMessage } from '../../db/models';
import { listMessageIds } from '../../db/history/history-search';
import {
  readAllFor,
  readIdsOf,
  readMarkOf,
  setReadFor,
  startReads,
  unreadCountOf,
  type ReadMark,
} from '../../db/history/message-reads';
import { escapeHtml, markdownToHtml } from '../../domain/content-format';
import { excerptOf } from '../../domain/plain-text';
import { newPreviewKey } from '../../domain/preview-keys';
import { notFound } from '../../lib/errors';
import { pageOf, type Paging } from '../../lib/paging';
import type { HeraldParts } from '../../parts';
import type { MessageImageChoice } from '../image-proxy/remote-image-choices';
import { hostedAttachmentsOf } from './hosted-attachments';
import { shareLinkOf } from './share-links';

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: sanitizeHtml.defaults.allowedTags.concat(['img', 'del', 'ins', 'span', 'h1', 'h2']),
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    '*': ['class', 'style'],
  },
  // Alert mails and reports colour their text; only presentational properties with plain
  // values survive (no url(), no expressions, no positioning that could cover the page).
  allowedStyles: {
    '*': {
      color: [/^#[0-9a-f]{3,8}$/i, /^rgba?\([\d\s,.%]+\)$/i, /^[a-z]{3,20}$/i],
      'background-color': [/^#[0-9a-f]{3,8}$/i, /^rgba?\([\d\s,.%]+\)$/i, /^[a-z]{3,20}$/i],
      'text-align': [/^(left|right|center|justify)$/],
      'font-weight': [/^(normal|bold|bolder|lighter|[1-9]00)$/],
      'font-style': [/^(normal|italic)$/],
      'text-decoration': [/^(none|underline|line-through)$/],
      'font-size': [/^\d{1,3}(px|em|rem|%)$/],
    },
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { target: '_blank', rel: 'noopener noreferrer' }),
  },
};

/**
 * Renders stored content to HTML that is safe to show: scripts, handlers and javascript: links
 * removed. With `proxyImage`, every remote image's src becomes what it answers (the image
 * proxy's signed address), or goes when it answers null; data: images stay as they are.
 */
export function safeHtmlOf(
  content: string,
  format: ContentType,
  proxyImage?: (src: string) => string | null,
): string {
  if (format === 'text') return `<pre class="herald-text">${escapeHtml(content)}</pre>`;
  const html = format === 'markdown' ? markdownToHtml(content) : content;
  if (!proxyImage) return sanitizeHtml(html, SANITIZE);
  return sanitizeHtml(html, {
    ...SANITIZE,
    transformTags: {
      ...SANITIZE.transformTags,
      img: (tagName, attribs) => {
        const { src, ...rest } = attribs;
        if (src === undefined || /^\s*data:/i.test(src)) return { tagName, attribs };
        const proxied = proxyImage(src);
        return { tagName, attribs: proxied === null ? rest : { ...rest, src: proxied } };
      },
    },
  });
}

/** What the reader's remote images need: the proxy's signer and each person's choices. */
export interface MessageImages {
  proxied(src: string): string | null;
  forMessage(userId: number, messageId: number): Promise<MessageImageChoice>;
}

/** What MessageService uses of the composed parts. */
export type MessageServiceDeps = Pick<
  HeraldParts,
  'sequelize' | 'writeLock' | 'clock' | 'settings' | 'listenUrl' | 'events'
> & {
  /** Remote images through the image proxy, per person's choice (issue 43 §3). */
  images?: MessageImages;
};

/**
 * Hosted messages as people read them. Read state is per person (`userId`: the signed-in
 * user): db/history/message-reads.ts keeps it; every change is announced as a `reads` event
 * for that person alone, with their new unread count.
 */
export class MessageService {
  constructor(private readonly deps: MessageServiceDeps) {}

  toDto(m: HostedMessage, read: boolean) {
    return {
      id: m.id,
      channelId: m.channelId,
      title: m.title,
      content: m.content,
      format: m.format,
      excerpt: excerptOf(m.content, m.format),
      url: m.url,
      priority: m.priority,
      /** The share link (opens the message without login), or null: none yet, or revoked. */
      previewUrl: m.previewKey ? shareLinkOf(this.deps, m.previewKey) : null,
      read,
      createdAt: m.createdAt,
      updatedAt: m.updatedAt,
    };
  }

  async list(
    userId: number,
    filter: { q?: string; unread?: boolean; sort?: MessageSort },
    paging: Paging,
  ) {
    const mark = await this.markOf(userId);
    const unreadCount = await unreadCountOf(this.deps.sequelize, userId);
    const page = await listMessageIds(
      this.deps.sequelize,
      filter,
      { limit: paging.pageSize, offset: paging.offset },
      { userId, mark, unreadCount },
    );
    const byId = new Map(
      (await HostedMessage.findAll({ where: { id: page.ids } })).map((m) => [m.id, m]),
    );
    // The page's order is the id query's (newest first, or priority first).
    const rows = page.ids.flatMap((id) => byId.get(id) ?? []);
    const read = await readIdsOf(this.deps.sequelize, userId, mark, page.ids);
    return {
      ...pageOf(
        rows.map((m) => this.toDto(m, read.has(m.id))),
        page.total,
        paging,
      ),
      totalIsCapped: page.totalIsCapped,
      unreadCount,
    };
  }

  async unreadCount(userId: number): Promise<number> {
    await this.markOf(userId);
    return unreadCountOf(this.deps.sequelize, userId);
  }

  async get(id: number) {
    const m = await HostedMessage.findByPk(id);
    if (!m) throw notFound(`message ${id} does not exist`);
    return m;
  }

  async detail(userId: number, id: number) {
    const m = await this.get(id);
    const read = await this.isRead(userId, id);
    const attachments = await hostedAttachmentsOf(this.deps.sequelize, id);
    const { images } = this.deps;
    if (!images) {
      return {
        ...this.toDto(m, read),
        safeHtml: safeHtmlOf(m.content, m.format),
        attachments,
        showRemoteImages: this.deps.settings.get().showRemoteImages,
        remoteImages: null,
      };
    }
    // The reader gets proxied addresses only, whatever it chooses: the original never reaches
    // the browser, and the choice says only whether it loads them without asking.
    const { show, ...remoteImages } = await images.forMessage(userId, id);
    return {
      ...this.toDto(m, read),
      safeHtml: safeHtmlOf(m.content, m.format, (src) => images.proxied(src)),
      attachments,
      showRemoteImages: show,
      remoteImages,
    };
  }

  async setRead(userId: number, id: number, read: boolean) {
    const m = await this.get(id);
    await this.markOf(userId);
    const unreadCount = await this.deps.writeLock.run(async ({ transaction }) => {
      await setReadFor(this.deps.sequelize, transaction, userId, id, read);
      return unreadCountOf(this.deps.sequelize, userId, transaction);
    });
    this.deps.events.emit('reads', { userId, id, read, unreadCount });
    return this.toDto(m, read);
  }

  async readAll(userId: number): Promise<number> {
    await this.markOf(userId);
    const updated = await this.deps.writeLock.run(({ transaction }) =>
      readAllFor(this.deps.sequelize, transaction, userId),
    );
    this.deps.events.emit('reads', { userId, id: null, read: true, unreadCount: 0 });
    return updated;
  }

  private async isRead(userId: number, id: number): Promise<boolean> {
    const mark = await this.markOf(userId);
    return (await readIdsOf(this.deps.sequelize, userId, mark, [id])).has(id);
  }

  /** The user's watermark, made the first time the user reads messages. */
  private async markOf(userId: number): Promise<ReadMark> {
    const mark = await readMarkOf(this.deps.sequelize, userId);
    if (mark) return mark;
    return this.deps.writeLock.run(async ({ transaction }) => {
      await startReads(this.deps.sequelize, transaction, userId);
      const made = await readMarkOf(this.deps.sequelize, userId, transaction);
      // The user is gone (deleted while signed in): nothing is read.
      return made ?? { readThrough: 0, below: 0 };
    });
  }

  /** Gives the message a share link, or returns the one it has. */
  async createLink(id: number): Promise<{ previewUrl: string }> {
    const m = await this.get(id);
    if (!m.previewKey) {
      await this.deps.writeLock.run(() => m.update({ previewKey: newPreviewKey() }));
    }
    return { previewUrl: shareLinkOf(this.deps, m.previewKey as string) };
  }

  /** Revokes the share link: the old address answers 404 from now on, and a new link differs. */
  async revokeLink(id: number): Promise<void> {
    const m = await this.get(id);
    if (m.previewKey) await this.deps.writeLock.run(() => m.update({ previewKey: null }));
  }

  async remove(id: number): Promise<void> {
    const m = await this.get(id);
    await this.deps.writeLock.run(() => m.destroy());
    this.deps.events.emit('messageDeleted', { id });
  }
}
