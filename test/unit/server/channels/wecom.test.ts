import { describe, expect, it } from 'vitest';

import { DeliveryError } from '../../../../server/channels/delivery-error';
import { throwOnErrcode } from '../../../../server/channels/errcode';
import {
  WECOM_ERRCODES,
  assertWeComSize,
  buildWeComBody,
  createWeComAdapter,
  weComConfigSchema,
} from '../../../../server/channels/wecom';
import { outboundMessage } from '../../../fixtures/peers/outbound-message';

const ROBOT = 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7xxx';

function thrown(fn: () => unknown): DeliveryError {
  try {
    fn();
  } catch (err) {
    return err as DeliveryError;
  }
  throw new Error('no error');
}

describe('buildWeComBody', () => {
  it('buildWeComBody() nests mention lists inside text and adds "@all" for everyone', () => {
    const body = buildWeComBody(
      outboundMessage({ mentions: { mobiles: ['13800000000'], userIds: ['zhangsan'], all: true } }),
    );
    expect(body).toEqual({
      msgtype: 'text',
      text: {
        content: 'Disk alert\nweb-3 at 98%',
        mentioned_list: ['zhangsan', '@all'],
        mentioned_mobile_list: ['13800000000'],
      },
    });
  });

  it('buildWeComBody() leaves the mention lists out when nobody is mentioned', () => {
    const body = buildWeComBody(outboundMessage());
    expect(body).toEqual({ msgtype: 'text', text: { content: 'Disk alert\nweb-3 at 98%' } });
  });

  it('buildWeComBody() appends inline <@userid> mentions to markdown after a title heading', () => {
    const body = buildWeComBody(
      outboundMessage({
        contentType: 'markdown',
        content: '>host: <font color="warning">web-3</font>',
        mentions: { mobiles: ['13800000000'], userIds: ['zhangsan', 'lisi'], all: false },
      }),
    );
    expect(body).toEqual({
      msgtype: 'markdown',
      markdown: {
        content:
          '### Disk alert\n\n>host: <font color="warning">web-3</font>\n\n<@zhangsan> <@lisi>',
      },
    });
  });
});

describe('assertWeComSize', () => {
  it('assertWeComSize() accepts text of exactly 2048 bytes and refuses 2049 as permanent', () => {
    const exact = { msgtype: 'text' as const, text: { content: 'a'.repeat(2045) + '字' } };
    expect(() => assertWeComSize(exact)).not.toThrow();
    const over = { msgtype: 'text' as const, text: { content: 'a'.repeat(2046) + '字' } };
    const err = thrown(() => assertWeComSize(over));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('2049 bytes');
    expect(err.message).toContain('at most 2048');
  });

  it('assertWeComSize() allows markdown up to 4096 bytes', () => {
    const md = (n: number) => ({
      msgtype: 'markdown' as const,
      markdown: { content: 'x'.repeat(n) },
    });
    expect(() => assertWeComSize(md(4096))).not.toThrow();
    expect(thrown(() => assertWeComSize(md(4097))).message).toContain('at most 4096');
  });
});

describe('weComConfigSchema', () => {
  it('weComConfigSchema wants the full URL with its key', () => {
    expect(weComConfigSchema.safeParse({ webhookUrl: ROBOT }).success).toBe(true);
    expect(weComConfigSchema.safeParse({ webhookUrl: '693a91f6-7xxx' }).success).toBe(false);
    expect(
      weComConfigSchema.safeParse({
        webhookUrl: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send',
      }).success,
    ).toBe(false);
  });
});

describe('createWeComAdapter', () => {
  const adapter = createWeComAdapter();

  it('masks the whole webhook URL, since its key is the credential', () => {
    expect(adapter.type).toBe('wecom');
    expect(adapter.secretFields).toEqual(['webhookUrl']);
  });

  it('rateLimit() paces 20 a minute per robot under a key that does not reveal the URL', () => {
    const limit = adapter.rateLimit?.({ webhookUrl: ROBOT });
    expect(limit).toMatchObject({ max: 20, perMs: 60_000 });
    expect(limit?.key).not.toContain('693a91f6');
    expect(limit?.key).not.toBe(adapter.rateLimit?.({ webhookUrl: `${ROBOT}8` })?.key);
  });
});

describe('WECOM_ERRCODES', () => {
  const classify = (errcode: number) =>
    thrown(() =>
      throwOnErrcode(
        { status: 200, headers: {}, text: '', json: { errcode, errmsg: 'x, hint: [1]' } },
        'WeCom',
        WECOM_ERRCODES,
      ),
    );

  it('classifies frequency limit and busy as transient', () => {
    expect(classify(45009)).toMatchObject({ retryable: true, retryAfterMs: 60_000 });
    expect(classify(-1).retryable).toBe(true);
  });

  it('classifies a bad key and invalid parameters as permanent', () => {
    expect(classify(93000).retryable).toBe(false);
    expect(classify(93000).message).toContain('copy the webhook URL again');
    expect(classify(40058).retryable).toBe(false);
  });
});
