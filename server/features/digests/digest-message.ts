import type { Bodies } from '../../domain/content-format';
import { escapeHtml } from '../../domain/content-format';
import type { CarriedSend } from './digest-store';

/** What a digest's message says: its sends, where they came from, and where to see them all. */
export interface DigestContent {
  sourceName: string;
  /** The sender's digest key; '' for the task's or template's own digest. */
  key: string;
  sends: readonly CarriedSend[];
  /** How many titles are listed before "and N more". */
  titleLimit: number;
  /** The send log's page of the digest, which lists every send it carried. */
  link: string;
  /** The zone its times are written in (the rule's, or UTC). */
  timeZone: string;
}

/** A time as `2026-11-28 14:05 UTC` in the given zone: one line, no locale's guesswork. */
export function digestTime(ms: number, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${timeZone}`;
}

/** The digest's title: what a notification shows first. */
export function digestTitle(content: Pick<DigestContent, 'sourceName' | 'key' | 'sends'>): string {
  const n = content.sends.length;
  const of = content.key ? `${content.sourceName} (${content.key})` : content.sourceName;
  return `Digest: ${n} message${n === 1 ? '' : 's'} from ${of}`;
}

/**
 * The digest in each markup a channel may take; every instance gets the one its content type
 * names, as a send's bodies are chosen (chooseContent): plain lines, Markdown with a list and
 * a link, or HTML with the titles escaped.
 */
export function digestBodies(content: DigestContent): Bodies {
  const { sends, titleLimit, link, timeZone } = content;
  const n = sends.length;
  const first = digestTime(sends[0].createdAt, timeZone);
  const last = digestTime(sends[n - 1].createdAt, timeZone);
  const listed = sends.slice(0, titleLimit).map((s) => s.title || '(no title)');
  const more = n - listed.length;
  const head = `${n} message${n === 1 ? '' : 's'}, ${n === 1 ? `at ${first}` : `from ${first} to ${last}`}`;
  const moreLine = more > 0 ? `and ${more} more` : null;
  const text = [
    `${head}:`,
    ...listed.map((t) => `- ${t}`),
    ...(moreLine ? [moreLine] : []),
    `All of them: ${link}`,
  ].join('\n');
  const markdown = [
    `**${head}:**`,
    '',
    ...listed.map((t) => `- ${escapeMarkdown(t)}`),
    ...(moreLine ? ['', moreLine] : []),
    '',
    `[All of them in the send log](${link})`,
  ].join('\n');
  const html = [
    `<p><b>${escapeHtml(head)}:</b></p>`,
    `<ul>${listed.map((t) => `<li>${escapeHtml(t)}</li>`).join('')}</ul>`,
    ...(moreLine ? [`<p>${moreLine}</p>`] : []),
    `<p><a href="${escapeHtml(link)}">All of them in the send log</a></p>`,
  ].join('\n');
  return { text, markdown, html };
}

/** A title as Markdown text: its markup characters shown, not applied. */
function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}
