import { describe, expect, it } from 'vitest';

import type { AnyChannelAdapter } from '../../../../server/channels/channel-adapter';
import { rateLimitKey } from '../../../../server/channels/channel-fields';
import { createChannelRegistry } from '../../../../server/channels/registry';

/* eslint-disable @typescript-eslint/no-explicit-any -- rateLimit is called with hand-made configs */

const registry = createChannelRegistry();

/**
 * What each kind declares to the rest of Herald: the console's kind list (label, content
 * types), which config fields are sealed at rest (secretFields) and which ones, when edited,
 * make the console ask for the secrets again (destinationFields), whether a send's mentions and
 * dynamic recipients reach it, and whether an instance must name a recipient.
 */
const declared: Record<
  string,
  Pick<
    AnyChannelAdapter,
    | 'label'
    | 'secretFields'
    | 'destinationFields'
    | 'contentTypes'
    | 'supportsMentions'
    | 'supportsDynamicRecipients'
    | 'fixedRecipient'
  >
> = {
  dingtalk: {
    label: 'DingTalk group robot',
    secretFields: ['webhookUrl', 'secret'],
    destinationFields: ['webhookUrl'],
    contentTypes: ['text', 'markdown'],
    supportsMentions: true,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
  },
  wecom: {
    label: 'WeCom group robot',
    secretFields: ['webhookUrl'],
    destinationFields: ['webhookUrl'],
    contentTypes: ['text', 'markdown'],
    supportsMentions: true,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
  },
  feishu: {
    label: 'Feishu / Lark bot',
    secretFields: ['webhookUrl', 'secret'],
    destinationFields: ['webhookUrl'],
    contentTypes: ['text', 'markdown'],
    supportsMentions: true,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
  },
  slack: {
    label: 'Slack incoming webhook',
    secretFields: ['webhookUrl'],
    destinationFields: ['webhookUrl'],
    contentTypes: ['text', 'markdown'],
    supportsMentions: true,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
  },
  discord: {
    label: 'Discord webhook',
    secretFields: ['webhookUrl'],
    destinationFields: ['webhookUrl'],
    contentTypes: ['text', 'markdown'],
    supportsMentions: true,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
  },
  telegram: {
    label: 'Telegram bot',
    secretFields: ['botToken'],
    destinationFields: ['serverUrl'],
    contentTypes: ['text', 'html', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
  },
  ntfy: {
    label: 'ntfy',
    secretFields: ['topic', 'token', 'password'],
    destinationFields: ['serverUrl', 'username'],
    contentTypes: ['text', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
  },
  gotify: {
    label: 'Gotify',
    secretFields: ['appToken'],
    destinationFields: ['serverUrl'],
    contentTypes: ['text', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
  },
  bark: {
    label: 'Bark (iOS)',
    secretFields: ['deviceKey'],
    destinationFields: ['serverUrl'],
    contentTypes: ['text', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
  },
  wechat_official: {
    label: 'WeChat official account',
    secretFields: ['appSecret'],
    destinationFields: ['appId', 'apiBaseUrl'],
    contentTypes: ['text'],
    supportsMentions: false,
    supportsDynamicRecipients: true,
    fixedRecipient: 'required',
  },
};

describe('what each channel kind declares', () => {
  it.each(Object.entries(declared))('%s', (kind, expected) => {
    const adapter = (registry as Record<string, AnyChannelAdapter>)[kind];
    expect({
      label: adapter.label,
      secretFields: adapter.secretFields,
      destinationFields: adapter.destinationFields,
      contentTypes: adapter.contentTypes,
      supportsMentions: adapter.supportsMentions,
      supportsDynamicRecipients: adapter.supportsDynamicRecipients,
      fixedRecipient: adapter.fixedRecipient,
    }).toStrictEqual(expected);
  });
});

describe('rate-limit keys: one budget per destination, named by kind, credentials hashed', () => {
  const limit = (kind: string, config: Record<string, unknown>) =>
    (registry as Record<string, AnyChannelAdapter>)[kind].rateLimit?.(config as any);
  const robot = 'https://robot.example/send?access_token=abc';

  it('DingTalk: one robot however its URL was pasted, 20 a minute', () => {
    const expected = { key: rateLimitKey('dingtalk', robot), max: 20, perMs: 60_000 };
    expect(limit('dingtalk', { webhookUrl: robot })).toStrictEqual(expected);
    expect(limit('dingtalk', { webhookUrl: `${robot}&timestamp=1&sign=x` })).toStrictEqual(
      expected,
    );
  });

  it('WeCom 20 a minute, Feishu 5 in 3 s, Slack 1 a second, per webhook URL', () => {
    expect(limit('wecom', { webhookUrl: robot })).toStrictEqual({
      key: rateLimitKey('wecom', robot),
      max: 20,
      perMs: 60_000,
    });
    expect(limit('feishu', { webhookUrl: robot })).toStrictEqual({
      key: rateLimitKey('feishu', robot),
      max: 5,
      perMs: 3_000,
    });
    expect(limit('slack', { webhookUrl: robot })).toStrictEqual({
      key: rateLimitKey('slack', robot),
      max: 1,
      perMs: 1_000,
    });
  });

  it('Telegram: per bot and chat; a private chat (numeric id) 1 a second, a group 20 a minute', () => {
    const config = (chatId: string) => ({ botToken: '123:abc', chatId });
    expect(limit('telegram', config('4242'))).toStrictEqual({
      key: rateLimitKey('telegram', '123:abc', '4242'),
      max: 1,
      perMs: 1_000,
    });
    for (const group of ['-1001234', '@channel', '4242abc']) {
      expect(limit('telegram', config(group))).toStrictEqual({
        key: rateLimitKey('telegram', '123:abc', group),
        max: 20,
        perMs: 60_000,
      });
    }
  });

  it('ntfy.sh: 60 in 5 minutes per server; a self-hosted server sets its own limits', () => {
    expect(limit('ntfy', { serverUrl: 'https://ntfy.example.org', topic: 't' })).toBeNull();
    expect(limit('ntfy', { serverUrl: 'https://ntfy.sh', topic: 't' })).toStrictEqual({
      key: rateLimitKey('ntfy', 'https://ntfy.sh'),
      max: 60,
      perMs: 300_000,
    });
  });
});
