import type { ContentType } from './channel-adapter';

/**
 * The send's url as the content's last paragraph, written in the content's format, for platforms
 * with no link field of their own (PushMe, PushPlus, ServerChan): a Markdown link, an HTML
 * paragraph with the link (the address escaped), or the bare address in text.
 */
export function withUrlLink(content: string, url: string | null, format: ContentType): string {
  if (!url) return content;
  const link =
    format === 'markdown'
      ? `[${url}](${url})`
      : format === 'html'
        ? `<p><a href="${escapeAttr(url)}">${escapeText(url)}</a></p>`
        : url;
  return content ? `${content}\n\n${link}` : link;
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}
