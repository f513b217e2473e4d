import { describe, expect, it } from 'vitest';

import {
  WECOM_APP_SEND_ERRCODES,
  WECOM_APP_TOKEN_ERRCODES,
  assertWeComAppSize,
  buildWeComAppBody,
  parseWeComAppRecipient,
  validateWeComAppRecipient,
  weComAppConfigSchema,
  weComAppReceipt,
} from '../../../../server/channels/wecom-app';
import { throwOnErrcode } from '../../../../server/channels/errcode';
import { httpReply, thrownBy } from '../../../fixtures/peers/expect-delivery-error';

describe('WeCom app recipients', () => {
  it('parseWeComAppRecipient() reads members, party: and tag: parts', () => {
    expect(parseWeComAppRecipient('zhangsan|lisi;party:2|3;tag:5')).toEqual({
      target: { touser: 'zhangsan|lisi', toparty: '2|3', totag: '5' },
    });
    expect(parseWeComAppRecipient(' Party: 7 , 8 ')).toEqual({ target: { toparty: '7|8' } });
    expect(parseWeComAppRecipient('user:a,a|b')).toEqual({ target: { touser: 'a|b' } });
  });

  it('parseWeComAppRecipient() sends @all alone, as WeCom ignores ids beside it', () => {
    expect(parseWeComAppRecipient('@all;party:2')).toEqual({ target: { touser: '@all' } });
  });

  it('validateWeComAppRecipient() names what is wrong', () => {
    expect(validateWeComAppRecipient('zhangsan')).toBeNull();
    expect(validateWeComAppRecipient('')).toMatch(/^no WeCom recipient given/);
    expect(validateWeComAppRecipient('tag:ops')).toBe(
      '"ops" is not a WeCom tag id: tag ids are numbers',
    );
    expect(validateWeComAppRecipient('zhang san')).toMatch(/^"zhang san" is not a WeCom member id/);
    expect(validateWeComAppRecipient('party:')).toBe('"party:" names no party id');
    const parties = Array.from({ length: 101 }, (_, i) => String(i + 1)).join('|');
    expect(validateWeComAppRecipient(`party:${parties}`)).toMatch(/too many departments: 101/);
  });
});

describe('WeCom app config and body', () => {
  it('the config takes agentId as a number or a numeric string, and nothing else', () => {
    const base = { corpId: 'ww1', secret: 's' };
    expect(weComAppConfigSchema.parse({ ...base, agentId: '1000002' }).agentId).toBe(1000002);
    expect(weComAppConfigSchema.parse({ ...base, agentId: 1000002, apiBaseUrl: '' })).toEqual({
      ...base,
      agentId: 1000002,
      apiBaseUrl: undefined,
    });
    const bad = weComAppConfigSchema.safeParse({ ...base, agentId: 'app' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].message).toBe('agentId must be the app’s numeric AgentId');
  });

  it('buildWeComAppBody() leads with the title and ends with the link', () => {
    const target = { touser: 'zhangsan' };
    const message = { title: 'Disk  alert', content: '**web-3**', url: 'https://x.example/1' };
    expect(
      buildWeComAppBody({ agentId: 7 }, { ...message, contentType: 'markdown' }, target),
    ).toEqual({
      touser: 'zhangsan',
      msgtype: 'markdown',
      agentid: 7,
      markdown: {
        content: '### Disk alert\n\n**web-3**\n\n[https://x.example/1](https://x.example/1)',
      },
    });
    expect(
      buildWeComAppBody(
        { agentId: 7 },
        { ...message, title: '', url: null, contentType: 'text' },
        target,
      ),
    ).toEqual({ touser: 'zhangsan', msgtype: 'text', agentid: 7, text: { content: '**web-3**' } });
  });

  it('assertWeComAppSize() counts UTF-8 bytes: 682 CJK characters pass, 683 do not', () => {
    const body = (content: string) =>
      buildWeComAppBody({ agentId: 1 }, { title: '', content, url: null, contentType: 'text' }, {});
    expect(() => assertWeComAppSize(body('长'.repeat(682)))).not.toThrow();
    const err = thrownBy(() => assertWeComAppSize(body('长'.repeat(683))));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('2049 bytes');
  });
});

describe('WeCom app replies', () => {
  it('token errors: 40001 is a wrong secret (permanent), -1 and 45009 are transient', () => {
    const secret = thrownBy(() =>
      throwOnErrcode(
        httpReply({ errcode: 40001, errmsg: 'invalid credential' }),
        'WeCom',
        WECOM_APP_TOKEN_ERRCODES,
      ),
    );
    expect(secret.retryable).toBe(false);
    expect(secret.message).toContain('secret is wrong');
    for (const errcode of [-1, 45009]) {
      const err = thrownBy(() =>
        throwOnErrcode(httpReply({ errcode, errmsg: 'x' }), 'WeCom', WECOM_APP_TOKEN_ERRCODES),
      );
      expect(err.retryable).toBe(true);
    }
  });

  it('send errors: the trusted-IP rule and agent mismatches are permanent with a hint', () => {
    const ip = thrownBy(() =>
      throwOnErrcode(
        httpReply({ errcode: 60020, errmsg: 'not allow to access from your ip' }),
        'WeCom',
        WECOM_APP_SEND_ERRCODES,
      ),
    );
    expect(ip.retryable).toBe(false);
    expect(ip.message).toContain('apiBaseUrl');
    const agent = thrownBy(() =>
      throwOnErrcode(httpReply({ errcode: 301002, errmsg: 'x' }), 'WeCom', WECOM_APP_SEND_ERRCODES),
    );
    expect(agent.retryable).toBe(false);
    // A token still refused after one refresh: another program refreshes it; retry later.
    const token = thrownBy(() =>
      throwOnErrcode(httpReply({ errcode: 42001, errmsg: 'x' }), 'WeCom', WECOM_APP_SEND_ERRCODES),
    );
    expect(token.retryable).toBe(true);
  });

  it('weComAppReceipt() names recipients WeCom could not reach', () => {
    expect(weComAppReceipt({ errcode: 0, invaliduser: '', invalidparty: '' }, 'HTTP 200 {}')).toBe(
      'HTTP 200 {}',
    );
    expect(weComAppReceipt({ invaliduser: 'a|b', invalidtag: '9' }, 'raw')).toBe(
      'raw (not delivered to invaliduser: a|b; invalidtag: 9)',
    );
  });
});
