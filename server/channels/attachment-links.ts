import type { ContentType, MessageAttachment, OutboundMessage } from './channel-adapter';

/** What a link needs of an attachment: no bytes, so it also serves stored lists. */
export type LinkedAttachment = Pick<
  MessageAttachment,
  'filename' | 'mime' | 'size' | 'url' | 'inline'
>;

export interface LinkOptions {
  /**
   * Whether the content's format may show an image by URL (Markdown `![]()`, HTML `<img>`).
   * False where the platform's Markdown has no images or wants its own image keys (WeCom
   * markdown v1, Feishu cards, Slack mrkdwn): there a link is all that works.
   */
  images: boolean;
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A Markdown link label that cannot close early or start other syntax. */
const markdownLabel = (s: string): string => s.replace(/[\\[\]*_`<>!]/g, (c) => `\\${c}`);

/**
 * A Markdown link target. Herald's URLs are encoded already, but encodeURIComponent leaves
 * parentheses as they are, and a `)` in a file name would end the link early.
 */
const markdownTarget = (url: string): string =>
  url.replace(
    /[()\s<>]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );

/** A file size the way people read it (1.2 MB): a hint of what the link will fetch. */
export function readableSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** One attachment as a line of `contentType`: an image where allowed, a link otherwise. */
export function attachmentLink(
  attachment: LinkedAttachment,
  contentType: ContentType,
  options: LinkOptions,
): string {
  const { filename, url } = attachment;
  const image = options.images && attachment.inline;
  if (contentType === 'markdown') {
    return image
      ? `![${markdownLabel(filename)}](${markdownTarget(url)})`
      : `[${markdownLabel(filename)}](${markdownTarget(url)}) (${readableSize(attachment.size)})`;
  }
  if (contentType === 'html') {
    return image
      ? `<img src="${escapeHtml(url)}" alt="${escapeHtml(filename)}">`
      : `<a href="${escapeHtml(url)}">${escapeHtml(filename)}</a> (${readableSize(attachment.size)})`;
  }
  return `${filename} (${readableSize(attachment.size)}): ${url}`;
}

/** The attachments as a block of `contentType`, or '' when there are none. */
export function attachmentLinks(
  attachments: readonly LinkedAttachment[] | undefined,
  contentType: ContentType,
  options: LinkOptions,
): string {
  if (!attachments?.length) return '';
  const lines = attachments.map((a) => attachmentLink(a, contentType, options));
  if (contentType === 'html') return `<p>${lines.join('<br>')}</p>`;
  // Markdown needs a blank line between images or links, or they run into one paragraph.
  return lines.join(contentType === 'markdown' ? '\n\n' : '\n');
}

/** `content` with the attachments' block after a blank line (or alone when content is empty). */
export function appendAttachmentLinks(
  content: string,
  attachments: readonly LinkedAttachment[] | undefined,
  contentType: ContentType,
  options: LinkOptions,
): string {
  const block = attachmentLinks(attachments, contentType, options);
  if (!block) return content;
  return content.trim() ? `${content}\n\n${block}` : block;
}

/**
 * The message a link-only channel sends: its content ends with the attachments, in the
 * content's own format, and it carries no attachments any more (so nothing adds them twice).
 */
export function withAttachmentLinks<
  M extends Pick<OutboundMessage, 'content' | 'contentType' | 'attachments'>,
>(
  message: M,
  options: LinkOptions,
  attachments: readonly LinkedAttachment[] | undefined = message.attachments,
): M {
  if (!attachments?.length) return message;
  return {
    ...message,
    content: appendAttachmentLinks(message.content, attachments, message.contentType, options),
    attachments: [],
  };
}
