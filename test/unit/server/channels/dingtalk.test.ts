import { describe, expect, it } from 'vitest';

import { DeliveryError } from '../../../../server/channels/delivery-error';
import {
  DINGTALK_ERRCODES,
  buildDingTalkBody,
  createDingTalkAdapter,
  dingTalkConfigSchema,
  dingTalkRequestUrl,
  dingTalkSign,
  stripSignParams,
} from '../../../../server/channels/dingtalk';
import { throwOnErrcode } from '../../../../server/channels/errcode';
import { adapterRuntime, outboundMessage } from '../../../fixtures/peers/outbound-message';

const ROBOT = 'https://oapi.dingtalk.com/robot/send?access_token=abc123';
const mentions = { mobiles: ['13800000000'], userIds: ['user123'], all: false };

describe('dingTalkSign', () => {
  it('dingTalkSign() matches the channels.md test vectors', () => {
    expect(dingTalkSign('this is secret', '1577836800000')).toBe(
      'fFV9t5lBS7KH4+5B0JjR99ab+AJkXFauQXycgTkS/tc=',
    );
    expect(dingTalkSign('SECtestsecret0123456789abcdef', '1700000000000')).toBe(
      'oWnZboeOYjlS1NUgJCZh8t1VJ8C+IwsRPuEItFP4A0s=',
    );
  });
});

describe('dingTalkRequestUrl', () => {
  it('dingTalkRequestUrl() appends timestamp and the sign URL-encoded exactly once', () => {
    const url = dingTalkRequestUrl(ROBOT, 'this is secret', 1577836800000);
    expect(url).toBe(
      `${ROBOT}&timestamp=1577836800000&sign=fFV9t5lBS7KH4%2B5B0JjR99ab%2BAJkXFauQXycgTkS%2Ftc%3D`,
    );
    const second = dingTalkRequestUrl(ROBOT, 'SECtestsecret0123456789abcdef', 1700000000000);
    expect(second.endsWith('&sign=oWnZboeOYjlS1NUgJCZh8t1VJ8C%2BIwsRPuEItFP4A0s%3D')).toBe(true);
  });

  it('dingTalkRequestUrl() leaves the URL alone when the robot has no secret', () => {
    expect(dingTalkRequestUrl(ROBOT, undefined, 1577836800000)).toBe(ROBOT);
  });

  it('dingTalkRequestUrl() replaces a timestamp and sign pasted along with the URL', () => {
    const pasted = `${ROBOT}&timestamp=1&sign=old`;
    expect(stripSignParams(pasted)).toBe(ROBOT);
    const url = new URL(dingTalkRequestUrl(pasted, 'this is secret', 1577836800000));
    expect(url.searchParams.getAll('timestamp')).toEqual(['1577836800000']);
    expect(url.searchParams.getAll('sign')).toEqual([
      'fFV9t5lBS7KH4+5B0JjR99ab+AJkXFauQXycgTkS/tc=',
    ]);
  });
});

describe('buildDingTalkBody', () => {
  it('buildDingTalkBody() puts the title, the content and @handles in a text message', () => {
    const body = buildDingTalkBody(outboundMessage({ mentions }));
    expect(body.msgtype).toBe('text');
    expect(body.text?.content).toBe('Disk alert\nweb-3 at 98%\n@13800000000 @user123');
    expect(body.at).toEqual({
      atMobiles: ['13800000000'],
      atUserIds: ['user123'],
      isAtAll: false,
    });
  });

  it('buildDingTalkBody() uses the title as markdown title and heading and appends @handles', () => {
    const body = buildDingTalkBody(
      outboundMessage({
        contentType: 'markdown',
        content: '> web-3 at **98%**',
        mentions: { mobiles: ['13800000000'], userIds: [], all: true },
      }),
    );
    expect(body.msgtype).toBe('markdown');
    expect(body.markdown).toEqual({
      title: 'Disk alert',
      text: '### Disk alert\n\n> web-3 at **98%**\n\n@13800000000',
    });
    expect(body.at.isAtAll).toBe(true);
  });

  it('buildDingTalkBody() does not repeat a handle the content already mentions', () => {
    const body = buildDingTalkBody(outboundMessage({ content: 'ping @13800000000 now', mentions }));
    expect(body.text?.content).toBe('Disk alert\nping @13800000000 now\n@user123');
  });

  it('buildDingTalkBody() falls back to the start of the body when the title is empty', () => {
    const body = buildDingTalkBody(
      outboundMessage({ title: '', contentType: 'markdown', content: '## Backup done\nok' }),
    );
    expect(body.markdown?.title).toBe('Backup done ok');
    expect(body.markdown?.text).toBe('## Backup done\nok');
  });

  it('buildDingTalkBody() keeps the body’s own dashes and drops its Markdown in that title', () => {
    const body = buildDingTalkBody(
      outboundMessage({
        title: '',
        contentType: 'markdown',
        content: '- **db-2** 数据库-主节点 (a_b)!',
      }),
    );
    expect(body.markdown?.title).toBe('db-2 数据库-主节点 (a_b)!');
  });

  it('buildDingTalkBody() keeps msgUuid stable per delivery and distinct across messages', () => {
    const message = outboundMessage();
    expect(buildDingTalkBody(message).msgUuid).toBe(buildDingTalkBody({ ...message }).msgUuid);
    expect(buildDingTalkBody({ ...message, content: 'other' }).msgUuid).not.toBe(
      buildDingTalkBody(message).msgUuid,
    );
    expect(buildDingTalkBody(message).msgUuid).toMatch(
      new RegExp(`^herald-${message.deliveryId}-`),
    );
  });
});

describe('dingTalkConfigSchema', () => {
  it('dingTalkConfigSchema refuses a URL without access_token and clears an empty secret', () => {
    expect(
      dingTalkConfigSchema.safeParse({ webhookUrl: 'https://oapi.dingtalk.com/robot/send' })
        .success,
    ).toBe(false);
    expect(dingTalkConfigSchema.safeParse({ webhookUrl: 'abc123' }).success).toBe(false);
    const parsed = dingTalkConfigSchema.parse({ webhookUrl: ` ${ROBOT} `, secret: '  ' });
    expect(parsed).toEqual({ webhookUrl: ROBOT, secret: undefined });
    expect(dingTalkConfigSchema.safeParse({ webhookUrl: ROBOT, sceret: 'typo' }).success).toBe(
      false,
    );
  });
});

describe('createDingTalkAdapter', () => {
  const adapter = createDingTalkAdapter();

  it('rateLimit() paces 20 a minute per robot, whatever sign params were pasted', () => {
    const limit = adapter.rateLimit?.({ webhookUrl: `${ROBOT}&timestamp=1&sign=x` });
    expect(limit).toEqual({
      key: adapter.rateLimit?.({ webhookUrl: ROBOT })?.key,
      max: 20,
      perMs: 60_000,
    });
    expect(limit?.key).not.toContain('abc123');
    expect(limit?.key).not.toBe(adapter.rateLimit?.({ webhookUrl: `${ROBOT}0` })?.key);
  });

  it('declares the URL (its access_token) and the signing secret as secrets, and text and markdown content', () => {
    expect(adapter.type).toBe('dingtalk');
    expect(adapter.secretFields).toEqual(['webhookUrl', 'secret']);
    expect(adapter.contentTypes).toEqual(['text', 'markdown']);
    expect(adapter.supportsMentions).toBe(true);
  });

  it('send() refuses a body over 20000 bytes with a permanent error before any request', async () => {
    // Port 9 on loopback has no listener: had the adapter sent, the error would be transient.
    const send = adapter.send(
      { webhookUrl: 'http://127.0.0.1:9/robot/send?access_token=x' },
      outboundMessage({ content: '字'.repeat(7000) }),
      adapterRuntime(),
    );
    await expect(send).rejects.toMatchObject({ retryable: false });
    await expect(send).rejects.toThrow(/at most 20000/);
  });
});

describe('DINGTALK_ERRCODES', () => {
  const classify = (errcode: number): DeliveryError => {
    try {
      throwOnErrcode(
        { status: 200, headers: {}, text: '', json: { errcode, errmsg: 'x' } },
        'DingTalk',
        DINGTALK_ERRCODES,
      );
    } catch (err) {
      return err as DeliveryError;
    }
    throw new Error('no error');
  };

  it('classifies rate limit and busy as transient, with 10 minutes after 130101', () => {
    expect(classify(130101)).toMatchObject({ retryable: true, retryAfterMs: 600_000 });
    expect(classify(-1)).toMatchObject({ retryable: true, retryAfterMs: undefined });
  });

  it('classifies token and security failures as permanent', () => {
    for (const code of [300001, 300005, 310000, 40035]) {
      expect(classify(code).retryable).toBe(false);
    }
  });
});
