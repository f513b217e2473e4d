import { decodeHTMLStrict } from 'entities';
import { Lexer, type Token, type Tokens } from 'marked';

/**
 * Slack's mrkdwn is not Markdown: `*bold*`, `_italic_`, `~strike~`, `<url|label>` links, no
 * headings, and only `&`, `<` and `>` escaped (as entities; there are no backslash escapes).
 * Markdown is converted where the mapping is direct; everything else is flattened to text.
 */

/** Escapes the three characters Slack treats as control characters. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

// marked keeps entity and numeric references as written. CommonMark means the character they
// name (any HTML5 name, and only with the closing semicolon, hence strict), except inside code.
// Slack itself decodes only &amp; &lt; &gt;, so `&eacute;` must leave here as `é`.
const plain = (text: string) => escapeSlack(decodeHTMLStrict(text));

/** A link target inside `<…|…>`: the delimiters Slack would misread are percent-encoded. */
export function slackUrl(href: string): string {
  return href
    .replace(/\|/g, '%7C')
    .replace(/</g, '%3C')
    .replace(/>/g, '%3E')
    .replace(/&/g, '&amp;');
}

function inline(tokens: readonly Token[] | undefined): string {
  if (!tokens) return '';
  return tokens.map(inlineToken).join('');
}

function inlineToken(token: Token): string {
  switch (token.type) {
    case 'strong':
      return `*${inline((token as Tokens.Strong).tokens)}*`;
    case 'em':
      return `_${inline((token as Tokens.Em).tokens)}_`;
    case 'del':
      return `~${inline((token as Tokens.Del).tokens)}~`;
    case 'codespan':
      // Code spans show references as written: CommonMark does not decode them there.
      return `\`${escapeSlack((token as Tokens.Codespan).text)}\``;
    case 'br':
      return '\n';
    case 'link': {
      const link = token as Tokens.Link;
      // A destination's references are decoded too: `?a=1&amp;b=2` means `?a=1&b=2`.
      const href = decodeHTMLStrict(link.href);
      const label = inline(link.tokens).replace(/\|/g, '¦');
      return label && label !== escapeSlack(href)
        ? `<${slackUrl(href)}|${label}>`
        : `<${slackUrl(href)}>`;
    }
    case 'image': {
      const image = token as Tokens.Image;
      const href = decodeHTMLStrict(image.href);
      return image.text
        ? `<${slackUrl(href)}|${plain(image.text).replace(/\|/g, '¦')}>`
        : `<${slackUrl(href)}>`;
    }
    case 'escape':
      return escapeSlack((token as Tokens.Escape).text);
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? inline(text.tokens) : plain(text.text);
    }
    default:
      // Raw HTML and anything unknown is shown as the characters it was written with.
      return 'raw' in token ? escapeSlack(token.raw) : '';
  }
}

function blocks(tokens: readonly Token[], tight = false): string {
  const parts: string[] = [];
  for (const token of tokens) {
    const rendered = block(token);
    if (rendered !== '') parts.push(rendered);
  }
  return parts.join(tight ? '\n' : '\n\n');
}

function block(token: Token): string {
  switch (token.type) {
    case 'space':
    case 'def':
      return '';
    case 'paragraph':
      return inline((token as Tokens.Paragraph).tokens);
    case 'heading':
      return `*${inline((token as Tokens.Heading).tokens)}*`;
    case 'code':
      return `\`\`\`\n${escapeSlack((token as Tokens.Code).text)}\n\`\`\``;
    case 'blockquote':
      return blocks((token as Tokens.Blockquote).tokens)
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
    case 'list':
      return list(token as Tokens.List);
    case 'hr':
      return '──────────';
    case 'table': {
      const table = token as Tokens.Table;
      const header = table.header.map((cell) => `*${inline(cell.tokens)}*`).join(' | ');
      const rows = table.rows.map((row) => row.map((cell) => inline(cell.tokens)).join(' | '));
      return [header, ...rows].join('\n');
    }
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? inline(text.tokens) : plain(text.text);
    }
    default:
      return 'raw' in token ? escapeSlack(token.raw.trim()) : '';
  }
}

function list(token: Tokens.List): string {
  const start = typeof token.start === 'number' ? token.start : 1;
  return token.items
    .map((item, i) => {
      const marker = token.ordered ? `${start + i}.` : '•';
      const check = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
      const body = blocks(
        item.tokens.filter((t) => t.type !== 'checkbox'),
        !item.loose,
      );
      const [first, ...rest] = body.split('\n');
      return [`${marker} ${check}${first}`, ...rest.map((line) => `    ${line}`)].join('\n');
    })
    .join('\n');
}

/** Converts Markdown to Slack mrkdwn with every text run escaped. */
export function markdownToMrkdwn(markdown: string): string {
  const tokens = new Lexer({ gfm: true, breaks: true }).lex(markdown);
  return blocks(tokens)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
