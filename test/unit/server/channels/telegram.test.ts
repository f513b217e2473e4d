import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  TELEGRAM_GROUP_RATE,
  TELEGRAM_MAX_CHARS,
  TELEGRAM_PRIVATE_RATE,
  buildTelegramBody,
  checkTelegramReply,
  createTelegramAdapter,
  telegramConfigSchema,
  telegramText,
} from '../../../../server/channels/telegram';
import {
  escapeTelegramHtml,
  telegramVisibleText,
  toTelegramHtml,
} from '../../../../server/channels/telegram-html';
import { markdownToHtml } from '../../../../server/domain/content-format';
import { httpReply, thrownBy } from '../../../fixtures/peers/expect-delivery-error';
import { markupSoup } from '../../../fixtures/peers/markup-soup';
import { outboundMessage } from '../../../fixtures/peers/outbound-message';
import { parseTelegramHtml } from '../../../fixtures/peers/telegram-peer';

const TOKEN = '123456789:AAHtestTokenForTheLocalPeer_0123';
const config = telegramConfigSchema.parse({ botToken: TOKEN, chatId: -1001234567890 });

describe('escapeTelegramHtml', () => {
  it('escapeTelegramHtml() makes any text show exactly as written', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const { text: visible } = parseTelegramHtml(escapeTelegramHtml(text));
        expect(visible).toBe(text);
      }),
    );
  });
});

describe('toTelegramHtml', () => {
  it('toTelegramHtml() always yields HTML that Telegram parses, from any HTML', () => {
    fc.assert(
      fc.property(markupSoup, (html) => {
        expect(() => parseTelegramHtml(toTelegramHtml(html))).not.toThrow();
      }),
      { numRuns: 400 },
    );
  });

  it('toTelegramHtml() always yields HTML that Telegram parses, from any Markdown', () => {
    fc.assert(
      fc.property(markupSoup, (markdown) => {
        expect(() => parseTelegramHtml(toTelegramHtml(markdownToHtml(markdown)))).not.toThrow();
      }),
      { numRuns: 400 },
    );
  });

  it('toTelegramHtml() keeps the words of plain text, whatever characters it holds', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }).filter((s) => !/[<&]/.test(s)),
        (text) => {
          const visible = parseTelegramHtml(toTelegramHtml(text)).text;
          expect(visible.replace(/\s+/g, ' ').trim()).toBe(text.replace(/\s+/g, ' ').trim());
        },
      ),
    );
  });

  it('toTelegramHtml() flattens blocks to newlines and keeps Telegram’s inline tags', () => {
    const html =
      '<h2>Disk</h2><p>web-3 at <strong>98%</strong> &amp; <em>rising</em></p><p>a<br>b</p>' +
      '<ul><li>one</li><li>two</li></ul><ol><li>x</li><li>y</li></ol>';
    expect(toTelegramHtml(html)).toBe(
      '<b>Disk</b>\n\nweb-3 at <b>98%</b> &amp; <i>rising</i>\n\na\nb\n\n• one\n• two\n\n1. x\n2. y',
    );
  });

  it('toTelegramHtml() keeps code blocks with their language and safe links only', () => {
    expect(toTelegramHtml('<pre><code class="language-js">if (a &lt; b) {}\n</code></pre>')).toBe(
      '<pre><code class="language-js">if (a &lt; b) {}\n</code></pre>',
    );
    expect(
      toTelegramHtml(
        '<a href="https://x/?a=1&amp;b=2">ok</a> <a href="javascript:alert(1)">bad</a> <a href="/rel">rel</a>',
      ),
    ).toBe('<a href="https://x/?a=1&amp;b=2">ok</a> bad rel');
  });

  it('toTelegramHtml() drops scripts, styles and the document head with their text', () => {
    expect(
      toTelegramHtml(
        '<html><head><title>T</title><style>p{}</style></head><body><script>x()</script><p>hi</p></body></html>',
      ),
    ).toBe('hi');
  });

  it('toTelegramHtml() renders task lists, tables and quotes from Markdown', () => {
    const md = '- [x] done\n- [ ] todo\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n> more';
    expect(toTelegramHtml(markdownToHtml(md))).toBe(
      '• ☑ done\n• ☐ todo\n\n<b>a</b> | <b>b</b>\n1 | 2\n\n<blockquote>quoted\nmore</blockquote>',
    );
  });
});

describe('telegramVisibleText', () => {
  it('telegramVisibleText() strips tags and decodes the entities Telegram knows', () => {
    expect(telegramVisibleText('<b>a &lt; b</b> &amp; &quot;c&quot; &#128512; &#x41;')).toBe(
      'a < b & "c" 😀 A',
    );
  });

  it('telegramVisibleText() counts any named reference as the one character it shows', () => {
    expect(telegramVisibleText('Caf&eacute; &copy; &amp;lt;')).toBe('Café © &lt;');
  });
});

describe('telegramText', () => {
  it('telegramText() sends text instances without parse mode, exactly as written', () => {
    const out = telegramText(outboundMessage({ content: '<b>not bold</b> & 1 < 2 *x*' }));
    expect(out).toEqual({ text: 'Disk alert\n<b>not bold</b> & 1 < 2 *x*' });
  });

  it('telegramText() renders Markdown to Telegram HTML with the title in bold', () => {
    const out = telegramText(
      outboundMessage({
        title: 'A & B',
        contentType: 'markdown',
        content: '**98%** used',
        url: 'https://x/?a=1&b="2"',
      }),
    );
    expect(out.parseMode).toBe('HTML');
    expect(out.text).toBe(
      '<b>A &amp; B</b>\n<b>98%</b> used\n<a href="https://x/?a=1&amp;b=&quot;2&quot;">https://x/?a=1&amp;b="2"</a>',
    );
    expect(() => parseTelegramHtml(out.text)).not.toThrow();
  });
});

describe('buildTelegramBody', () => {
  it('buildTelegramBody() sets chat, thread and silence options', () => {
    const body = buildTelegramBody(
      { chatId: '@heraldnews', messageThreadId: 42, disableNotification: true },
      outboundMessage({ contentType: 'html', content: '<p>hi</p>' }),
    );
    expect(body).toEqual({
      chat_id: '@heraldnews',
      text: '<b>Disk alert</b>\nhi',
      parse_mode: 'HTML',
      message_thread_id: 42,
      disable_notification: true,
    });
  });

  it('buildTelegramBody() counts visible characters, so markup does not use up the 4096', () => {
    const visible = 'x'.repeat(TELEGRAM_MAX_CHARS - 'Disk alert\n'.length);
    const body = buildTelegramBody(
      config,
      outboundMessage({ contentType: 'html', content: `<b>${visible}</b>` }),
    );
    expect(telegramVisibleText(body.text)).toHaveLength(TELEGRAM_MAX_CHARS);
  });

  it('buildTelegramBody() refuses a message over 4096 characters as permanent instead of splitting it', () => {
    const err = thrownBy(() =>
      buildTelegramBody(config, outboundMessage({ content: 'y'.repeat(TELEGRAM_MAX_CHARS) })),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('4107 characters');
    expect(err.message).toContain('4096');
  });

  it('buildTelegramBody() refuses a message with nothing to show', () => {
    const err = thrownBy(() =>
      buildTelegramBody(
        config,
        outboundMessage({ title: '', contentType: 'html', content: '<script>x</script>' }),
      ),
    );
    expect(err.retryable).toBe(false);
  });
});

describe('checkTelegramReply', () => {
  it('checkTelegramReply() accepts {"ok":true}', () => {
    expect(() =>
      checkTelegramReply(httpReply({ ok: true, result: { message_id: 1 } })),
    ).not.toThrow();
  });

  it('checkTelegramReply() honours parameters.retry_after on 429', () => {
    const err = thrownBy(() =>
      checkTelegramReply(
        httpReply(
          {
            ok: false,
            error_code: 429,
            description: 'Too Many Requests: retry after 7',
            parameters: { retry_after: 7 },
          },
          429,
        ),
      ),
    );
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBe(7000);
    expect(err.message).toContain('retry after 7');
  });

  it('checkTelegramReply() is permanent for bad requests and names the cause', () => {
    const err = thrownBy(() =>
      checkTelegramReply(
        httpReply({ ok: false, error_code: 400, description: 'Bad Request: chat not found' }, 400),
      ),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('chat not found');
    const token = thrownBy(() =>
      checkTelegramReply(
        httpReply({ ok: false, error_code: 401, description: 'Unauthorized' }, 401),
      ),
    );
    expect(token.message).toContain('check the bot token');
  });

  it('checkTelegramReply() tells the new chat id when a group was migrated', () => {
    const err = thrownBy(() =>
      checkTelegramReply(
        httpReply(
          {
            ok: false,
            error_code: 400,
            description: 'Bad Request: group chat was upgraded to a supergroup chat',
            parameters: { migrate_to_chat_id: -1009876543210 },
          },
          400,
        ),
      ),
    );
    expect(err.message).toContain('set chatId to -1009876543210');
  });

  it('checkTelegramReply() fails on a 200 that is not {"ok":true}', () => {
    expect(thrownBy(() => checkTelegramReply(httpReply('<html></html>'))).retryable).toBe(false);
  });
});

describe('telegramConfigSchema', () => {
  it('telegramConfigSchema accepts numeric and @name chats and defaults the API URL', () => {
    expect(config.chatId).toBe('-1001234567890');
    expect(config.serverUrl).toBe('https://api.telegram.org');
    const custom = telegramConfigSchema.parse({
      botToken: TOKEN,
      chatId: '@heraldnews',
      serverUrl: 'http://tg.local:8081/',
    });
    expect(custom.serverUrl).toBe('http://tg.local:8081');
  });

  it('telegramConfigSchema refuses malformed tokens and chats', () => {
    expect(telegramConfigSchema.safeParse({ botToken: 'nope', chatId: 1 }).success).toBe(false);
    expect(telegramConfigSchema.safeParse({ botToken: TOKEN, chatId: 'my group' }).success).toBe(
      false,
    );
  });
});

describe('createTelegramAdapter', () => {
  it('createTelegramAdapter() paces groups at 20 a minute and private chats at one a second', () => {
    const adapter = createTelegramAdapter();
    expect(adapter.rateLimit?.(config)).toMatchObject(TELEGRAM_GROUP_RATE);
    const dm = telegramConfigSchema.parse({ botToken: TOKEN, chatId: 424242 });
    expect(adapter.rateLimit?.(dm)).toMatchObject(TELEGRAM_PRIVATE_RATE);
    expect(adapter.rateLimit?.(dm)?.key).not.toContain('AAH');
  });
});
