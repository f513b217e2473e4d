import { describe, expect, it } from 'vitest';

import {
  FEISHU_RATE,
  buildFeishuBody,
  checkFeishuReply,
  createFeishuAdapter,
  feishuConfigSchema,
  feishuOpenIds,
  feishuSign,
  signFeishuBody,
} from '../../../../server/channels/feishu';
import { httpReply, thrownBy } from '../../../fixtures/peers/expect-delivery-error';
import { outboundMessage } from '../../../fixtures/peers/outbound-message';

const HOOK = 'https://open.feishu.cn/open-apis/bot/v2/hook/0f1e2d3c-aaaa-bbbb-cccc-123456789abc';
const OPEN_ID = 'ou_7d8a6e6df7621556ce0d21922b676706ccs';

describe('feishuSign', () => {
  it('feishuSign() matches the channels.md test vectors', () => {
    expect(feishuSign('demo', '100')).toBe('jquNHnVOwmDRfw+vqTIrY5dooJAgi5EcRtLsQE4wfXg=');
    expect(feishuSign('testsecret', '1700000000')).toBe(
      'AOc8oJ7//5OlQlfWC3nRL0R+IkuzcD1FKcAyibRK9Q8=',
    );
  });

  it('feishuSign() differs from DingTalk’s algorithm on the same input', () => {
    expect(feishuSign('testsecret', '1700000000')).not.toBe(
      'QtI24SK3/m8+lKf0d89/bclcePXhBxolugiWin8Kl3c=',
    );
  });
});

describe('signFeishuBody', () => {
  it('signFeishuBody() adds a timestamp in whole seconds and its sign next to msg_type', () => {
    const body = buildFeishuBody(outboundMessage());
    const signed = signFeishuBody(body, 'testsecret', 1_700_000_000_999);
    expect(signed.timestamp).toBe('1700000000');
    expect(signed.sign).toBe('AOc8oJ7//5OlQlfWC3nRL0R+IkuzcD1FKcAyibRK9Q8=');
    expect(signed.msg_type).toBe('text');
  });

  it('signFeishuBody() leaves the body unsigned when the bot has no secret', () => {
    const signed = signFeishuBody(buildFeishuBody(outboundMessage()), undefined, 1_700_000_000_000);
    expect(signed).not.toHaveProperty('sign');
    expect(signed).not.toHaveProperty('timestamp');
  });
});

describe('buildFeishuBody', () => {
  it('buildFeishuBody() sends text as a text message with the title as its first line', () => {
    expect(buildFeishuBody(outboundMessage({ url: 'https://example.com/d' }))).toEqual({
      msg_type: 'text',
      content: { text: 'Disk alert\nweb-3 at 98%\nhttps://example.com/d' },
    });
  });

  it('buildFeishuBody() mentions open_ids and everyone with <at user_id> in text', () => {
    const body = buildFeishuBody(
      outboundMessage({
        mentions: { mobiles: ['13800000000'], userIds: [OPEN_ID, OPEN_ID], all: true },
      }),
    );
    expect(body.msg_type).toBe('text');
    expect(body.msg_type === 'text' && body.content.text).toBe(
      `Disk alert\nweb-3 at 98%\n<at user_id="${OPEN_ID}"></at> <at user_id="all">所有人</at>`,
    );
  });

  it('buildFeishuBody() turns markdown into an interactive card with a markdown element', () => {
    const body = buildFeishuBody(
      outboundMessage({
        contentType: 'markdown',
        content: '**web-3** at 98%',
        url: 'https://example.com/d',
        mentions: { mobiles: [], userIds: [OPEN_ID], all: true },
      }),
    );
    expect(body).toEqual({
      msg_type: 'interactive',
      card: {
        config: { wide_screen_mode: true },
        header: { title: { tag: 'plain_text', content: 'Disk alert' }, template: 'blue' },
        elements: [
          {
            tag: 'markdown',
            content: `**web-3** at 98%\n[https://example.com/d](https://example.com/d)\n<at id=${OPEN_ID}></at> <at id=all></at>`,
          },
        ],
      },
    });
  });

  it('buildFeishuBody() leaves out the card header when the title is blank', () => {
    const body = buildFeishuBody(outboundMessage({ contentType: 'markdown', title: '  ' }));
    expect(body.msg_type === 'interactive' && body.card.header).toBeUndefined();
  });
});

describe('feishuOpenIds', () => {
  it('feishuOpenIds() keeps open_ids only, without repeats', () => {
    expect(feishuOpenIds([OPEN_ID, ' user123 ', '13800000000', OPEN_ID, 'ou_x'])).toEqual([
      OPEN_ID,
      'ou_x',
    ]);
  });
});

describe('checkFeishuReply', () => {
  it('checkFeishuReply() accepts code 0', () => {
    expect(() =>
      checkFeishuReply(
        httpReply({ StatusCode: 0, StatusMessage: 'success', code: 0, data: {}, msg: 'success' }),
      ),
    ).not.toThrow();
  });

  it('checkFeishuReply() treats the frequency limit (11232) as transient', () => {
    const err = thrownBy(() =>
      checkFeishuReply(httpReply({ code: 11232, msg: 'frequency limited' })),
    );
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('11232');
  });

  it('checkFeishuReply() treats signature, keyword, IP and size errors as permanent with a hint', () => {
    for (const [code, words] of [
      [19021, 'signing secret'],
      [19024, 'keyword'],
      [19022, 'allowlist'],
      [9499, 'malformed'],
    ] as const) {
      const err = thrownBy(() => checkFeishuReply(httpReply({ code, msg: 'x' })));
      expect(err.retryable).toBe(false);
      expect(err.message).toContain(String(code));
      expect(err.message).toContain(words);
    }
  });

  it('checkFeishuReply() reads the legacy StatusCode when code is absent', () => {
    const err = thrownBy(() =>
      checkFeishuReply(httpReply({ StatusCode: 19024, StatusMessage: 'Key Words Not Found' })),
    );
    expect(err.message).toContain('19024 Key Words Not Found');
  });

  it('checkFeishuReply() fails on a reply that is not Feishu talking, and retries HTTP 5xx', () => {
    expect(thrownBy(() => checkFeishuReply(httpReply('<html>hi</html>'))).retryable).toBe(false);
    expect(thrownBy(() => checkFeishuReply(httpReply('bad gateway', 502))).retryable).toBe(true);
  });
});

describe('feishuConfigSchema', () => {
  it('feishuConfigSchema treats an empty secret as none', () => {
    expect(feishuConfigSchema.parse({ webhookUrl: HOOK, secret: '' })).toEqual({
      webhookUrl: HOOK,
    });
  });

  it('feishuConfigSchema refuses the legacy v1 hook URL and non-URLs', () => {
    const v1 = feishuConfigSchema.safeParse({
      webhookUrl: 'https://open.feishu.cn/open-apis/bot/hook/abc',
    });
    expect(v1.success).toBe(false);
    expect(JSON.stringify(v1.error?.issues)).toContain('v2');
    expect(feishuConfigSchema.safeParse({ webhookUrl: 'open.feishu.cn/x' }).success).toBe(false);
  });
});

describe('createFeishuAdapter', () => {
  it('createFeishuAdapter() paces 5 per 3 s per bot under a key that hides the webhook token', () => {
    const adapter = createFeishuAdapter();
    const limit = adapter.rateLimit?.(feishuConfigSchema.parse({ webhookUrl: HOOK }));
    expect(limit).toMatchObject(FEISHU_RATE);
    expect(limit?.key).not.toContain('0f1e2d3c');
    expect(adapter.secretFields).toEqual(['webhookUrl', 'secret']);
    expect(adapter.supportsMentions).toBe(true);
  });
});
