import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  SLACK_RATE,
  buildSlackBody,
  checkSlackReply,
  createSlackAdapter,
  slackConfigSchema,
  slackMentions,
} from '../../../../server/channels/slack';
import { escapeSlack, markdownToMrkdwn } from '../../../../server/channels/slack-mrkdwn';
import { httpReply, thrownBy } from '../../../fixtures/peers/expect-delivery-error';
import { markupSoup } from '../../../fixtures/peers/markup-soup';
import { outboundMessage } from '../../../fixtures/peers/outbound-message';

const HOOK = 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX';

const unescape = (s: string) =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('escapeSlack', () => {
  it('escapeSlack() leaves no control character and round-trips', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const escaped = escapeSlack(text);
        expect(escaped).not.toMatch(/[<>]/);
        expect(unescape(escaped)).toBe(text);
      }),
    );
  });
});

describe('markdownToMrkdwn', () => {
  it('markdownToMrkdwn() maps bold, italic, strike, code and links to mrkdwn', () => {
    expect(markdownToMrkdwn('**bold** *it* _it2_ ~~gone~~ `a<b` [dash](https://x/?a=1&b=2)')).toBe(
      '*bold* _it_ _it2_ ~gone~ `a&lt;b` <https://x/?a=1&amp;b=2|dash>',
    );
  });

  it('markdownToMrkdwn() turns headings bold, lists into bullets and keeps code blocks', () => {
    const md = '# Disk alert\n\n- one\n- two\n\n1. x\n2. y\n\n```\nif (a < b) {}\n```\n\n> quoted';
    expect(markdownToMrkdwn(md)).toBe(
      '*Disk alert*\n\n• one\n• two\n\n1. x\n2. y\n\n```\nif (a &lt; b) {}\n```\n\n> quoted',
    );
  });

  it('markdownToMrkdwn() escapes text and shows raw HTML as written', () => {
    expect(markdownToMrkdwn('a & b <div>x</div> &amp; <!channel>')).toBe(
      'a &amp; b &lt;div&gt;x&lt;/div&gt; &amp; &lt;!channel&gt;',
    );
  });

  it('markdownToMrkdwn() decodes references where CommonMark does: text, alt text and link targets, not code', () => {
    expect(
      markdownToMrkdwn(
        '[Caf&eacute;](https://x/?a=1&amp;b=2&copy=3) ![&copy;](https://x/i&amp;j) `&copy;` &copy &nosuch;',
      ),
    ).toBe(
      '<https://x/?a=1&amp;b=2&amp;copy=3|Café> <https://x/i&amp;j|©> `&amp;copy;` &amp;copy &amp;nosuch;',
    );
  });

  it('markdownToMrkdwn() never lets a < through except as a link it built', () => {
    fc.assert(
      fc.property(markupSoup, (md) => {
        const out = markdownToMrkdwn(md);
        // Every "<" opens one of our <url|label> or <url> links.
        for (const m of out.matchAll(/</g))
          expect(out.slice(m.index)).toMatch(/^<[^\s<>|]+(\|[^<>]*)?>/);
      }),
      { numRuns: 300 },
    );
  });
});

describe('slackMentions', () => {
  it('slackMentions() keeps Slack member ids and maps everyone to <!channel>', () => {
    expect(
      slackMentions({
        mobiles: ['13800000000'],
        userIds: ['U024BE7LH', 'user123', 'W0123ABC'],
        all: true,
      }),
    ).toBe('<@U024BE7LH> <@W0123ABC> <!channel>');
    expect(slackMentions({ mobiles: [], userIds: ['manager1234'], all: false })).toBe('');
  });
});

describe('buildSlackBody', () => {
  it('buildSlackBody() sends text instances escaped with mrkdwn off', () => {
    expect(
      buildSlackBody(outboundMessage({ title: 'A <b>', content: '*not bold* & 1 < 2' })),
    ).toEqual({
      text: 'A &lt;b&gt;\n*not bold* &amp; 1 &lt; 2',
      mrkdwn: false,
    });
  });

  it('buildSlackBody() escapes & and the link delimiters in the message URL', () => {
    expect(
      buildSlackBody(outboundMessage({ content: 'x', url: 'https://x/?a=1&b=2|3>' })).text,
    ).toBe('Disk alert\nx\n<https://x/?a=1&amp;b=2%7C3%3E>');
  });

  it('buildSlackBody() sends Markdown as mrkdwn with a bold title, link and mentions', () => {
    expect(
      buildSlackBody(
        outboundMessage({
          contentType: 'markdown',
          content: '**98%** used',
          url: 'https://example.com/d',
          mentions: { mobiles: [], userIds: ['U024BE7LH'], all: false },
        }),
      ),
    ).toEqual({ text: '*Disk alert*\n*98%* used\n<https://example.com/d>\n<@U024BE7LH>' });
  });
});

describe('checkSlackReply', () => {
  it('checkSlackReply() accepts 200 "ok"', () => {
    expect(() => checkSlackReply(httpReply('ok'))).not.toThrow();
  });

  it('checkSlackReply() fails a 200 that is not "ok" (not a Slack webhook)', () => {
    expect(thrownBy(() => checkSlackReply(httpReply('<html>'))).retryable).toBe(false);
  });

  it('checkSlackReply() is permanent for plain-string errors and explains them', () => {
    const err = thrownBy(() => checkSlackReply(httpReply('no_service', 404)));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('no_service');
    expect(err.message).toContain('create a new one');
    expect(thrownBy(() => checkSlackReply(httpReply('channel_is_archived', 410))).retryable).toBe(
      false,
    );
  });

  it('checkSlackReply() honours Retry-After on 429 and retries 5xx', () => {
    const err = thrownBy(() =>
      checkSlackReply(httpReply('rate_limited', 429, { 'retry-after': '30' })),
    );
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBe(30_000);
    expect(thrownBy(() => checkSlackReply(httpReply('rollup_error', 500))).retryable).toBe(true);
  });
});

describe('createSlackAdapter', () => {
  it('createSlackAdapter() keeps the webhook URL secret and paces one a second', () => {
    const adapter = createSlackAdapter();
    expect(adapter.secretFields).toContain('webhookUrl');
    const limit = adapter.rateLimit?.(slackConfigSchema.parse({ webhookUrl: HOOK }));
    expect(limit).toMatchObject(SLACK_RATE);
    expect(limit?.key).not.toContain('XXXX');
  });
});
