import { describe, expect, it } from 'vitest';

import type { Priority } from '../../../../contract/priority';
import {
  BARK_LEVEL_BY_PRIORITY,
  barkConfigSchema,
  buildBarkBody,
} from '../../../../server/channels/bark';
import { buildDiscordBody, discordConfigSchema } from '../../../../server/channels/discord';
import { buildEmail, emailPriority } from '../../../../server/channels/email';
import { GOTIFY_PRIORITY, buildGotifyBody } from '../../../../server/channels/gotify';
import { buildNtfyBody, ntfyConfigSchema } from '../../../../server/channels/ntfy';
import { buildSlackBody, slackConfigSchema } from '../../../../server/channels/slack';
import { buildTelegramBody, telegramSilent } from '../../../../server/channels/telegram';
import {
  DEFAULT_WEBHOOK_BODY,
  renderWebhookBody,
  renderWebhookUrl,
  withDeliveryFields,
} from '../../../../server/channels/webhook-body';
import { outboundMessage } from '../../../fixtures/peers/outbound-message';

const PRIORITIES: Priority[] = [1, 2, 3, 4, 5];
const DISCORD_HOOK = 'https://discord.com/api/webhooks/112233445566778899/abcDEF-token_123';
const SLACK_HOOK = 'https://hooks.slack.com/services/T0/B0/secret';

describe('ntfy: priority as is, the instance’s as default', () => {
  it('buildNtfyBody() sends the sender’s priority over the instance’s, and the instance’s for none', () => {
    const config = ntfyConfigSchema.parse({ topic: 'alerts', priority: 2 });
    for (const p of PRIORITIES)
      expect(buildNtfyBody(config, outboundMessage({ priority: p })).priority).toBe(p);
    expect(buildNtfyBody(config, outboundMessage()).priority).toBe(2);
    const bare = ntfyConfigSchema.parse({ topic: 'alerts' });
    expect(buildNtfyBody(bare, outboundMessage())).not.toHaveProperty('priority');
  });
});

describe('Gotify: 1→1, 2→3, 3→5, 4→8, 5→10', () => {
  it('buildGotifyBody() maps the sender’s priority and keeps the instance’s for none', () => {
    expect(GOTIFY_PRIORITY).toEqual({ 1: 1, 2: 3, 3: 5, 4: 8, 5: 10 });
    for (const p of PRIORITIES)
      expect(buildGotifyBody({ priority: 0 }, outboundMessage({ priority: p })).priority).toBe(
        GOTIFY_PRIORITY[p],
      );
    expect(buildGotifyBody({ priority: 7 }, outboundMessage()).priority).toBe(7);
    expect(buildGotifyBody({}, outboundMessage())).not.toHaveProperty('priority');
  });
});

describe('Bark: interruption levels', () => {
  it('buildBarkBody() maps 1–2 passive, 3 active, 4 timeSensitive, 5 critical', () => {
    const config = barkConfigSchema.parse({ deviceKey: 'k', level: 'active' });
    const levels = PRIORITIES.map((p) => buildBarkBody(config, outboundMessage({ priority: p })));
    expect(levels.map((b) => b.level)).toEqual([
      'passive',
      'passive',
      'active',
      'timeSensitive',
      'critical',
    ]);
    expect(levels.map((b) => b.level)).toEqual(PRIORITIES.map((p) => BARK_LEVEL_BY_PRIORITY[p]));
    // The app's critical-alert volume applies: Herald does not pick one.
    expect(levels[4]).not.toHaveProperty('volume');
  });

  it('buildBarkBody() without a priority sends the instance’s level, or none', () => {
    const withLevel = barkConfigSchema.parse({ deviceKey: 'k', level: 'timeSensitive' });
    expect(buildBarkBody(withLevel, outboundMessage()).level).toBe('timeSensitive');
    const bare = barkConfigSchema.parse({ deviceKey: 'k' });
    expect(buildBarkBody(bare, outboundMessage())).not.toHaveProperty('level');
  });
});

describe('Telegram: silent at 1–2', () => {
  it('telegramSilent() is silent at 1–2, audible at 4–5, and the instance’s choice at 3 or none', () => {
    for (const disableNotification of [false, true]) {
      const config = { disableNotification };
      expect(telegramSilent(config, 1)).toBe(true);
      expect(telegramSilent(config, 2)).toBe(true);
      expect(telegramSilent(config, 3)).toBe(disableNotification);
      expect(telegramSilent(config, null)).toBe(disableNotification);
      expect(telegramSilent(config, 4)).toBe(false);
      expect(telegramSilent(config, 5)).toBe(false);
    }
  });

  it('buildTelegramBody() sets disable_notification only when silent', () => {
    const config = { chatId: '424242' };
    expect(buildTelegramBody(config, outboundMessage({ priority: 2 }))).toMatchObject({
      disable_notification: true,
    });
    expect(buildTelegramBody(config, outboundMessage({ priority: 5 }))).not.toHaveProperty(
      'disable_notification',
    );
    expect(buildTelegramBody(config, outboundMessage())).toEqual({
      chat_id: '424242',
      text: 'Disk alert\nweb-3 at 98%',
    });
  });
});

describe('email: nodemailer’s low / normal / high', () => {
  it('emailPriority() is low at 1–2, normal at 3, high at 4–5 and nothing for none', () => {
    expect(PRIORITIES.map(emailPriority)).toEqual(['low', 'low', 'normal', 'high', 'high']);
    expect(emailPriority(null)).toBeUndefined();
  });

  it('buildEmail() adds the priority only when one is given', () => {
    const config = { from: 'herald@example.com', fromName: '' };
    expect(buildEmail(config, outboundMessage({ priority: 5 }), ['a@example.com']).priority).toBe(
      'high',
    );
    expect(buildEmail(config, outboundMessage(), ['a@example.com'])).not.toHaveProperty('priority');
  });
});

describe('Discord: @here at 5 when the instance allows it', () => {
  it('buildDiscordBody() pings @here at 5 only with mentionAtUrgent', () => {
    const on = discordConfigSchema.parse({ webhookUrl: DISCORD_HOOK, mentionAtUrgent: true });
    expect(buildDiscordBody(on, outboundMessage({ priority: 5 }))).toEqual({
      content: '@here\n**Disk alert**\nweb-3 at 98%',
      allowed_mentions: { parse: ['everyone'], users: [] },
    });
    const quiet = {
      content: '**Disk alert**\nweb-3 at 98%',
      allowed_mentions: { parse: [], users: [] },
    };
    expect(buildDiscordBody(on, outboundMessage({ priority: 4 }))).toEqual(quiet);
    expect(buildDiscordBody(on, outboundMessage())).toEqual(quiet);
    const off = discordConfigSchema.parse({ webhookUrl: DISCORD_HOOK });
    expect(off).not.toHaveProperty('mentionAtUrgent');
    expect(buildDiscordBody(off, outboundMessage({ priority: 5 }))).toEqual(quiet);
  });

  it('discordConfigSchema refuses a mentionAtUrgent that is not a boolean', () => {
    expect(
      discordConfigSchema.safeParse({ webhookUrl: DISCORD_HOOK, mentionAtUrgent: 'yes' }).success,
    ).toBe(false);
  });
});

describe('Slack: <!here> at 5 when the instance allows it', () => {
  it('buildSlackBody() prepends <!here> at 5 only with mentionAtUrgent, for both formats', () => {
    const on = slackConfigSchema.parse({ webhookUrl: SLACK_HOOK, mentionAtUrgent: true });
    expect(buildSlackBody(outboundMessage({ priority: 5 }), on)).toEqual({
      text: '<!here>\nDisk alert\nweb-3 at 98%',
      mrkdwn: false,
    });
    expect(buildSlackBody(outboundMessage({ priority: 5, contentType: 'markdown' }), on).text).toBe(
      '<!here>\n*Disk alert*\nweb-3 at 98%',
    );
    const quiet = { text: 'Disk alert\nweb-3 at 98%', mrkdwn: false };
    expect(buildSlackBody(outboundMessage({ priority: 4 }), on)).toEqual(quiet);
    expect(buildSlackBody(outboundMessage(), on)).toEqual(quiet);
    const off = slackConfigSchema.parse({ webhookUrl: SLACK_HOOK });
    expect(buildSlackBody(outboundMessage({ priority: 5 }), off)).toEqual(quiet);
    expect(buildSlackBody(outboundMessage({ priority: 5 }))).toEqual(quiet);
  });
});

describe('custom webhook: {{priority}} and {{repeats}}', () => {
  const text = { title: 'T', content: 'c', url: '', format: 'text' };

  it('renderWebhookBody() gives bare markers in JSON as numbers, and null for no priority', () => {
    const template = '{"p":{{priority}},"r":{{repeats}},"s":"p={{priority}} r={{repeats}}"}';
    expect(
      JSON.parse(renderWebhookBody(template, { ...text, priority: 4, repeats: 3 }, 'json')),
    ).toEqual({ p: 4, r: 3, s: 'p=4 r=3' });
    expect(
      JSON.parse(renderWebhookBody(template, { ...text, priority: null, repeats: 0 }, 'json')),
    ).toEqual({ p: null, r: 0, s: 'p= r=0' });
    expect(JSON.parse(renderWebhookBody(template, text, 'json'))).toEqual({
      p: null,
      r: 0,
      s: 'p= r=0',
    });
  });

  it('renderWebhookBody() and renderWebhookUrl() give digits in other encodings', () => {
    const v = { ...text, priority: 5, repeats: 2 };
    expect(renderWebhookBody('p={{priority}}&r={{repeats}}', v, 'form')).toBe('p=5&r=2');
    expect(renderWebhookBody('<p>{{priority}}</p>', { ...v, priority: null }, 'xml')).toBe(
      '<p></p>',
    );
    expect(renderWebhookUrl('https://h.example/?p={{ priority }}&r={{repeats}}', v)).toBe(
      'https://h.example/?p=5&r=2',
    );
  });

  it('withDeliveryFields() adds priority and repeats to the default body only when they say something', () => {
    const rendered = renderWebhookBody(DEFAULT_WEBHOOK_BODY, text, 'json');
    expect(withDeliveryFields(rendered, { ...text, priority: null, repeats: 0 })).toBe(rendered);
    expect(JSON.parse(withDeliveryFields(rendered, { ...text, priority: 5, repeats: 0 }))).toEqual({
      title: 'T',
      content: 'c',
      url: '',
      format: 'text',
      priority: 5,
    });
    expect(
      JSON.parse(withDeliveryFields(rendered, { ...text, priority: null, repeats: 3 })),
    ).toEqual({ title: 'T', content: 'c', url: '', format: 'text', repeats: 3 });
  });
});
