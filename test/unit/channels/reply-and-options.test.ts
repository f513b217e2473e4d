import { describe, expect, it } from 'vitest';

import { buildGotifyBody, checkGotifyReply } from '../../../server/channels/gotify';
import { buildNtfyBody, ntfyConfigSchema } from '../../../server/channels/ntfy';
import {
  buildTelegramBody,
  checkTelegramReply,
  telegramConfigSchema,
  telegramText,
} from '../../../server/channels/telegram';
import { WECOM_MAX_CONTENT_BYTES, assertWeComSize } from '../../../server/channels/wecom';
import { httpReply, thrownBy } from '../../fixtures/peers/expect-delivery-error';
import { outboundMessage } from '../../fixtures/peers/outbound-message';

describe('Telegram request options and replies', () => {
  const chat = { chatId: '-1001234' };

  it('sends parse_mode HTML only for HTML and Markdown content', () => {
    expect(buildTelegramBody(chat, outboundMessage({ contentType: 'text' }))).toStrictEqual({
      chat_id: '-1001234',
      text: 'Disk alert\nweb-3 at 98%',
    });
    expect(buildTelegramBody(chat, outboundMessage({ contentType: 'html' })).parse_mode).toBe(
      'HTML',
    );
    expect(
      buildTelegramBody(chat, outboundMessage({ contentType: 'markdown', content: '**x**' })),
    ).toStrictEqual({
      chat_id: '-1001234',
      text: '<b>Disk alert</b>\n<b>x</b>',
      parse_mode: 'HTML',
    });
  });

  it('passes the forum topic and silent delivery only when set', () => {
    const body = buildTelegramBody(
      { ...chat, messageThreadId: 7, disableNotification: true },
      outboundMessage(),
    );
    expect(body.message_thread_id).toBe(7);
    expect(body.disable_notification).toBe(true);
    const plain = buildTelegramBody({ ...chat, disableNotification: false }, outboundMessage());
    expect('message_thread_id' in plain).toBe(false);
    expect('disable_notification' in plain).toBe(false);
  });

  it('trims the title of text content', () => {
    expect(telegramText(outboundMessage({ title: '  Disk  ', content: 'c' })).text).toBe('Disk\nc');
  });

  it('refuses an empty message, and one whose HTML has nothing visible', () => {
    const empty = thrownBy(() =>
      buildTelegramBody(chat, outboundMessage({ title: '', content: '' })),
    );
    expect(empty.message).toBe(
      'Telegram cannot send an empty message: title and content are empty',
    );
    expect(empty.retryable).toBe(false);
    expect(() =>
      buildTelegramBody(
        chat,
        outboundMessage({ title: ' ', content: '<b> </b>', contentType: 'html' }),
      ),
    ).toThrow('Telegram cannot send an empty message');
  });

  it('keeps a numeric chat id given as a number, trimmed', () => {
    const parsed = telegramConfigSchema.parse({ botToken: '1:abc', chatId: -100123 });
    expect(parsed.chatId).toBe('-100123');
    expect(telegramConfigSchema.parse({ botToken: '1:abc', chatId: ' @alerts_x ' }).chatId).toBe(
      '@alerts_x',
    );
  });

  it('hints at the bot token on 401 and 404 only', () => {
    for (const status of [401, 404]) {
      const err = thrownBy(() =>
        checkTelegramReply(httpReply({ ok: false, description: 'Unauthorized' }, status)),
      );
      expect(err.message).toContain('(check the bot token)');
    }
    const other = thrownBy(() =>
      checkTelegramReply(httpReply({ ok: false, description: 'Bad Request: x' }, 400)),
    );
    expect(other.message).not.toContain('check the bot token');
    expect(other.message).toContain('Telegram');
  });

  it('refuses a 200 without "ok": true, keeping the reply', () => {
    const err = thrownBy(() => checkTelegramReply(httpReply({ result: {} }, 200)));
    expect(err.message).toBe('Telegram answered without "ok": true');
    expect(err.retryable).toBe(false);
    expect(err.reply).toContain('{"result":{}}');
  });
});

describe('Gotify request options and replies', () => {
  it('sends the priority only when configured, and a trimmed title', () => {
    const message = outboundMessage({ title: '  Disk  ' });
    expect(buildGotifyBody({ priority: 0 }, message)).toMatchObject({ title: 'Disk', priority: 0 });
    expect('priority' in buildGotifyBody({}, message)).toBe(false);
  });

  it('hints at the token kind on 401 and 403', () => {
    const err = (status: number) =>
      thrownBy(() => checkGotifyReply(httpReply({ error: 'x', errorDescription: 'why' }, status)))
        .message;
    expect(err(401)).toContain('(appToken must be an application token)');
    expect(err(403)).toContain('(the request carried user credentials; use an application token)');
    expect(err(400)).not.toContain('token');
    expect(err(400)).toContain('why');
  });
});

describe('ntfy options', () => {
  it('refuses a token together with a username or password, on the token field', () => {
    for (const extra of [{ username: 'u', password: 'p' }, { username: 'u' }, { password: 'p' }]) {
      const result = ntfyConfigSchema.safeParse({ topic: 't', token: 'tk_x', ...extra });
      expect(result.success).toBe(false);
      expect(result.error!.issues).toContainEqual(
        expect.objectContaining({
          path: ['token'],
          message: 'use either token or username/password',
        }),
      );
    }
  });

  it('wants username and password together, reported on the password field', () => {
    for (const half of [{ username: 'u' }, { password: 'p' }]) {
      const result = ntfyConfigSchema.safeParse({ topic: 't', ...half });
      expect(result.error!.issues).toContainEqual(
        expect.objectContaining({
          path: ['password'],
          message: 'username and password go together',
        }),
      );
    }
    expect(ntfyConfigSchema.safeParse({ topic: 't', username: 'u', password: 'p' }).success).toBe(
      true,
    );
  });

  it('treats an empty priority as none', () => {
    expect(ntfyConfigSchema.parse({ topic: 't', priority: '' }).priority).toBeUndefined();
  });

  it('sends priority and tags only when set, and a trimmed title', () => {
    const message = outboundMessage({ title: ' Disk ' });
    expect(buildNtfyBody({ topic: 't', priority: 4, tags: ['warning'] }, message)).toMatchObject({
      title: 'Disk',
      priority: 4,
      tags: ['warning'],
    });
    const bare = buildNtfyBody({ topic: 't', tags: [] }, message);
    expect('priority' in bare).toBe(false);
    expect('tags' in bare).toBe(false);
  });
});

describe('WeCom size refusals', () => {
  it('points a too-long text message at a markdown instance, and not a markdown one', () => {
    const text = thrownBy(() =>
      assertWeComSize({
        msgtype: 'text',
        text: { content: 'x'.repeat(WECOM_MAX_CONTENT_BYTES.text + 1) },
      } as never),
    );
    expect(text.message).toBe(
      `message too large for WeCom: text content is ${WECOM_MAX_CONTENT_BYTES.text + 1} bytes (title included), WeCom accepts at most ${WECOM_MAX_CONTENT_BYTES.text}; a markdown instance allows 4096`,
    );
    const markdown = thrownBy(() =>
      assertWeComSize({
        msgtype: 'markdown',
        markdown: { content: '字'.repeat(1366) },
      } as never),
    );
    expect(markdown.message).toBe(
      'message too large for WeCom: markdown content is 4098 bytes (title included), WeCom accepts at most 4096',
    );
  });
});
