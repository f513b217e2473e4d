import { describe, expect, it } from 'vitest';

import {
  buildDiscordBody,
  checkDiscordReply,
  createDiscordAdapter,
  discordConfigSchema,
  discordMentions,
  discordRequestUrl,
  escapeDiscordMarkdown,
} from '../../../../server/channels/discord';
import { httpReply, thrownBy } from '../../../fixtures/peers/expect-delivery-error';
import { outboundMessage } from '../../../fixtures/peers/outbound-message';

const HOOK = 'https://discord.com/api/webhooks/112233445566778899/abcDEF-token_123';
const USER = '123456789012345678';

describe('escapeDiscordMarkdown', () => {
  it('escapeDiscordMarkdown() escapes inline markers and line-start headings, quotes and lists', () => {
    expect(escapeDiscordMarkdown('a*b*_c_ ~~d~~ `e` ||f|| [g](h) <@1>')).toBe(
      'a\\*b\\*\\_c\\_ \\~\\~d\\~\\~ \\`e\\` \\|\\|f\\|\\| \\[g\\](h) \\<@1\\>',
    );
    expect(escapeDiscordMarkdown('# big\n> quote\n- item\n12. item\nnot # a heading')).toBe(
      '\\# big\n\\> quote\n\\- item\n12\\. item\nnot # a heading',
    );
  });
});

describe('discordMentions', () => {
  it('discordMentions() pings listed Discord users and everyone only when asked', () => {
    expect(
      discordMentions({ mobiles: ['13800000000'], userIds: [USER, 'user123', USER], all: true }),
    ).toEqual({
      prefix: `<@${USER}> @everyone`,
      allowed: { parse: ['everyone'], users: [USER] },
    });
    expect(discordMentions({ mobiles: [], userIds: [], all: false })).toEqual({
      prefix: '',
      allowed: { parse: [], users: [] },
    });
  });
});

describe('buildDiscordBody', () => {
  it('buildDiscordBody() escapes text instances and suppresses pings from the content itself', () => {
    const body = buildDiscordBody({}, outboundMessage({ content: '@everyone *look* at web_3' }));
    expect(body).toEqual({
      content: '**Disk alert**\n@everyone \\*look\\* at web\\_3',
      allowed_mentions: { parse: [], users: [] },
    });
  });

  it('buildDiscordBody() sends Markdown as written with the link, mentions and overrides', () => {
    const body = buildDiscordBody(
      { username: 'Herald', avatarUrl: 'https://example.com/a.png' },
      outboundMessage({
        contentType: 'markdown',
        content: '**98%** used',
        url: 'https://example.com/d',
        mentions: { mobiles: [], userIds: [USER], all: false },
      }),
    );
    expect(body).toEqual({
      content: `**Disk alert**\n**98%** used\n<https://example.com/d>\n<@${USER}>`,
      username: 'Herald',
      avatar_url: 'https://example.com/a.png',
      allowed_mentions: { parse: [], users: [USER] },
    });
  });
});

describe('discordRequestUrl', () => {
  it('discordRequestUrl() asks Discord to wait for the saved message and keeps the thread', () => {
    expect(discordRequestUrl({ webhookUrl: HOOK })).toBe(`${HOOK}?wait=true`);
    const url = new URL(
      discordRequestUrl({ webhookUrl: `${HOOK}?thread_id=1`, threadId: '998877665544332211' }),
    );
    expect(url.searchParams.get('wait')).toBe('true');
    expect(url.searchParams.getAll('thread_id')).toEqual(['998877665544332211']);
  });
});

describe('checkDiscordReply', () => {
  it('checkDiscordReply() accepts 204 and 200', () => {
    expect(() => checkDiscordReply(httpReply(undefined, 204))).not.toThrow();
    expect(() => checkDiscordReply(httpReply({ id: '1' }, 200))).not.toThrow();
  });

  it('checkDiscordReply() is permanent for an unknown webhook (10015) and says what to do', () => {
    const err = thrownBy(() =>
      checkDiscordReply(httpReply({ message: 'Unknown Webhook', code: 10015 }, 404)),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('Unknown Webhook (code 10015)');
    expect(err.message).toContain('create a new one');
  });

  it('checkDiscordReply() prefers the Retry-After header and falls back to retry_after in the body', () => {
    const body = { message: 'You are being rate limited.', retry_after: 2.5, global: false };
    const withHeader = thrownBy(() =>
      checkDiscordReply(httpReply(body, 429, { 'retry-after': '3' })),
    );
    expect(withHeader.retryable).toBe(true);
    expect(withHeader.retryAfterMs).toBe(3000);
    const bodyOnly = thrownBy(() => checkDiscordReply(httpReply(body, 429)));
    expect(bodyOnly.retryAfterMs).toBe(2500);
  });
});

describe('discordConfigSchema', () => {
  it('discordConfigSchema treats empty optional fields as unset and checks thread ids', () => {
    expect(
      discordConfigSchema.parse({ webhookUrl: HOOK, username: '', avatarUrl: '', threadId: '' }),
    ).toEqual({
      webhookUrl: HOOK,
    });
    expect(discordConfigSchema.safeParse({ webhookUrl: HOOK, threadId: 'general' }).success).toBe(
      false,
    );
    expect(discordConfigSchema.safeParse({ webhookUrl: HOOK, avatarUrl: 'a.png' }).success).toBe(
      false,
    );
  });
});

describe('createDiscordAdapter', () => {
  it('createDiscordAdapter() keeps the webhook URL secret and relies on 429s, not fixed pacing', () => {
    const adapter = createDiscordAdapter();
    expect(adapter.secretFields).toEqual(['webhookUrl']);
    expect(adapter.rateLimit).toBeUndefined();
  });
});
