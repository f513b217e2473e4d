import { describe, expect, it } from 'vitest';

import { buildBarkBody, checkBarkReply } from '../../../../server/channels/bark';
import {
  buildDingTalkBody,
  dingTalkConfigSchema,
  dingTalkRequestUrl,
  stripSignParams,
} from '../../../../server/channels/dingtalk';
import { buildDiscordBody, checkDiscordReply } from '../../../../server/channels/discord';
import { buildFeishuBody } from '../../../../server/channels/feishu';
import { buildGotifyBody, checkGotifyReply } from '../../../../server/channels/gotify';
import { buildSlackBody, checkSlackReply } from '../../../../server/channels/slack';
import { buildNtfyBody, ntfyConfigSchema } from '../../../../server/channels/ntfy';
import {
  buildTelegramBody,
  checkTelegramReply,
  telegramConfigSchema,
  telegramText,
} from '../../../../server/channels/telegram';
import {
  OPENID_MAX_LENGTH,
  validateOpenId,
  weChatOfficialConfigSchema,
} from '../../../../server/channels/wechat-official';
import {
  WECOM_MAX_CONTENT_BYTES,
  assertWeComSize,
  buildWeComBody,
} from '../../../../server/channels/wecom';
import { httpReply, thrownBy } from '../../../fixtures/peers/expect-delivery-error';
import { outboundMessage } from '../../../fixtures/peers/outbound-message';

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

describe('Discord options and replies', () => {
  it('sets username and avatar only when configured; trims title and mention ids', () => {
    const message = outboundMessage({
      title: '  Disk  ',
      content: '1. first',
      mentions: { mobiles: [], userIds: [' 123456789012345678 '], all: false },
    });
    expect(
      buildDiscordBody({ username: 'Herald', avatarUrl: 'https://a/x.png' }, message),
    ).toStrictEqual({
      content: '**Disk**\n1\\. first\n<@123456789012345678>',
      allowed_mentions: { parse: [], users: ['123456789012345678'] },
      username: 'Herald',
      avatar_url: 'https://a/x.png',
    });
    const bare = buildDiscordBody({}, message);
    expect('username' in bare || 'avatar_url' in bare).toBe(false);
  });

  it('quotes the error code with the message, and hints by code', () => {
    const err = (body: unknown) => thrownBy(() => checkDiscordReply(httpReply(body, 404))).message;
    const both = err({ message: 'Unknown Webhook', code: 10015 });
    expect(both).toContain('Unknown Webhook (code 10015)');
    expect(both).toContain('(the webhook was deleted; create a new one and update webhookUrl)');
    const messageOnly = err({ message: 'Not Found' });
    expect(messageOnly).toContain('Not Found');
    expect(messageOnly).not.toContain('(code');
  });
});

describe('Slack replies', () => {
  it('accepts "ok" with surrounding whitespace', () => {
    expect(() => checkSlackReply(httpReply(' ok\n'))).not.toThrow();
  });

  it('hints by the error string Slack answers, trimmed', () => {
    const err = thrownBy(() => checkSlackReply(httpReply('no_service\n', 404)));
    expect(err.message).toContain('no_service (the webhook was removed; create a new one)');
    expect(err.message).toContain('Slack');
  });

  it('refuses a 200 that is not "ok", keeping the reply', () => {
    const err = thrownBy(() => checkSlackReply(httpReply('<html>login</html>')));
    expect(err.message).toBe(
      'Slack answered without "ok"; is webhookUrl a Slack incoming webhook?',
    );
    expect(err.retryable).toBe(false);
    expect(err.reply).toContain('<html>login</html>');
  });

  it('trims the title and the member ids it mentions', () => {
    const body = buildSlackBody(
      outboundMessage({
        title: ' Disk ',
        content: 'c',
        mentions: { mobiles: [], userIds: [' U024BE7LH '], all: false },
      }),
    );
    expect(body.text).toBe('Disk\nc\n<@U024BE7LH>');
  });
});

describe('Bark options and replies', () => {
  const key = { deviceKey: 'dk' };

  it('sends group, sound, level, icon and url only when set, and a trimmed title', () => {
    const message = outboundMessage({ title: ' Disk ', url: 'https://x.example/' });
    expect(
      buildBarkBody(
        { ...key, group: 'ops', sound: 'alarm', level: 'timeSensitive', icon: 'https://i/x.png' },
        message,
      ),
    ).toStrictEqual({
      device_key: 'dk',
      body: 'web-3 at 98%',
      title: 'Disk',
      group: 'ops',
      sound: 'alarm',
      level: 'timeSensitive',
      icon: 'https://i/x.png',
      url: 'https://x.example/',
    });
    expect(buildBarkBody(key, outboundMessage({ title: '' }))).toStrictEqual({
      device_key: 'dk',
      body: 'web-3 at 98%',
    });
  });

  it('retries a failed push unless APNs refused the device for good', () => {
    const busy = thrownBy(() =>
      checkBarkReply(httpReply({ code: 503, message: 'push failed: timeout' }, 503)),
    );
    expect(busy.retryable).toBe(true);
    const gone = thrownBy(() =>
      checkBarkReply(httpReply({ code: 500, message: 'push failed: BadDeviceToken' }, 500)),
    );
    expect(gone.retryable).toBe(false);
    expect(gone.message).toContain('Bark');
  });

  it('refuses a 200 whose code is not 200, quoting code and message', () => {
    const err = thrownBy(() => checkBarkReply(httpReply({ code: 400, message: 'bad key' })));
    expect(err.message).toBe('Bark refused the push: code 400 bad key');
    expect(err.retryable).toBe(false);
    expect(err.reply).toContain('bad key');
    expect(thrownBy(() => checkBarkReply(httpReply({ code: 500 }))).message).toBe(
      'Bark refused the push: code 500',
    );
    expect(() => checkBarkReply(httpReply({ code: 200, message: 'success' }))).not.toThrow();
  });
});

describe('robot bodies: titles and mentions as the platforms read them', () => {
  it('DingTalk: trims mention handles, flattens the title, previews a title-less Markdown body', () => {
    const body = buildDingTalkBody(
      outboundMessage({
        title: ' Disk \n alert ',
        content: 'c',
        mentions: { mobiles: [' 13800000000 ', ''], userIds: [' u1 '], all: false },
      }),
    );
    expect(body.at).toStrictEqual({
      atMobiles: ['13800000000'],
      atUserIds: ['u1'],
      isAtAll: false,
    });
    expect(body.text).toStrictEqual({ content: 'Disk alert\nc\n@13800000000 @u1' });
    const untitled = buildDingTalkBody(
      outboundMessage({ title: '', contentType: 'markdown', content: '## >  Disk   full\nmore' }),
    );
    // The text DingTalk's reader sees: the heading's marks go, and a `>` after them is the
    // heading's own text (CommonMark), not a quote.
    expect(untitled.markdown!.title).toBe('> Disk full more');
    const blank = buildDingTalkBody(
      outboundMessage({ title: '', contentType: 'markdown', content: '### ' }),
    );
    expect(blank.markdown!.title).toBe('Herald');
  });

  it('DingTalk: refuses a webhook URL that does not parse, strips a pasted signature', () => {
    expect(
      dingTalkConfigSchema.safeParse({ webhookUrl: 'https://%zz/robot/send?access_token=a' })
        .success,
    ).toBe(false);
    expect(stripSignParams('https://oapi.example/robot/send?access_token=a&timestamp=1')).toBe(
      'https://oapi.example/robot/send?access_token=a',
    );
    // Without a signature the URL is used exactly as pasted.
    const pasted = 'https://OAPI.example/robot/send?access_token=a';
    expect(stripSignParams(pasted)).toBe(pasted);
    expect(dingTalkRequestUrl('https://oapi.example/robot/send', 'SECx', 1000)).toMatch(
      /^https:\/\/oapi\.example\/robot\/send\?timestamp=1000&sign=/,
    );
  });

  it('WeCom: trims mention ids and mobiles, flattens the title', () => {
    const body = buildWeComBody(
      outboundMessage({
        title: ' Disk \n alert ',
        content: 'c',
        mentions: { mobiles: [' 13800000000 '], userIds: [' zhangsan ', ' '], all: false },
      }),
    );
    expect(body).toStrictEqual({
      msgtype: 'text',
      text: {
        content: 'Disk alert\nc',
        mentioned_list: ['zhangsan'],
        mentioned_mobile_list: ['13800000000'],
      },
    });
    const untitled = buildWeComBody(outboundMessage({ title: '', content: 'c' }));
    expect(untitled).toStrictEqual({ msgtype: 'text', text: { content: 'c' } });
  });

  it('Feishu: trims open_ids and flattens the title', () => {
    const body = buildFeishuBody(
      outboundMessage({
        title: ' Disk \n alert ',
        content: 'c',
        mentions: { mobiles: [], userIds: [' ou_abc123 '], all: false },
      }),
    );
    expect(JSON.stringify(body)).toContain('<at user_id=\\"ou_abc123\\"></at>');
    expect(JSON.stringify(body)).toContain('Disk alert');
    expect(JSON.stringify(body)).not.toContain('Disk \\n alert');
  });
});

describe('WeChat official account recipients and base URL', () => {
  it('takes an OpenID up to the length limit and quotes the start of a longer one', () => {
    expect(validateOpenId('o'.repeat(OPENID_MAX_LENGTH))).toBeNull();
    expect(validateOpenId(` ${'o'.repeat(OPENID_MAX_LENGTH + 1)} `)).toBe(
      `"${'o'.repeat(16)}…" is not an OpenID: it is longer than ${OPENID_MAX_LENGTH} characters`,
    );
  });

  it('drops every trailing slash of apiBaseUrl', () => {
    const parsed = weChatOfficialConfigSchema.parse({
      appId: 'wx1',
      appSecret: 's',
      templateId: 't',
      apiBaseUrl: 'https://wechat.example///',
    });
    expect(parsed.apiBaseUrl).toBe('https://wechat.example');
  });
});
