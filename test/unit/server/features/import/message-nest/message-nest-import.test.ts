import { describe, expect, it } from 'vitest';

import { weComConfigSchema } from '../../../../../../server/channels/wecom';
import {
  decodeMessageNestToken,
  encodeMessageNestToken,
} from '../../../../../../server/crypto/message-nest-token';
import { MESSAGE_NEST_CHANNEL_KINDS } from '../../../../../../server/features/import/message-nest/channel-kinds';
import { timeOf } from '../../../../../../server/features/import/message-nest/values';

describe('Message Nest tokens', () => {
  it('match the fact sheet’s test vector both ways', () => {
    expect(encodeMessageNestToken('TK1234567890')).toBe('71627e0501010505090905050b');
    expect(decodeMessageNestToken('71627e0501010505090905050b')).toBe('TK1234567890');
    expect(decodeMessageNestToken('71627E0501010505090905050B')).toBe('TK1234567890');
  });

  it('round-trip every id form Message Nest used', () => {
    for (const id of ['TPabcdefghij', 'T-abcdefghij', '3f1c2b9e-8d7a-4c5b-9e0f-1a2b3c4d5e6f']) {
      expect(decodeMessageNestToken(encodeMessageNestToken(id))).toBe(id);
    }
  });

  it('decodes nothing from text that cannot be one of its tokens', () => {
    for (const t of ['', '7', '716', 'zz627e05', 'AAAA-BBBB', 'ab'.repeat(80)]) {
      expect(decodeMessageNestToken(t)).toBeNull();
    }
  });
});

describe('Message Nest timestamps', () => {
  it('reads Go time text with offset, fraction and monotonic suffix', () => {
    expect(timeOf('2026-07-20 09:15:02.123456789 +0800 CST')?.toISOString()).toBe(
      '2026-07-20T01:15:02.123Z',
    );
    expect(timeOf('2026-07-20 09:15:02 +0000 UTC m=+0.005')?.toISOString()).toBe(
      '2026-07-20T09:15:02.000Z',
    );
    expect(timeOf('2026-07-20T09:15:02Z')?.toISOString()).toBe('2026-07-20T09:15:02.000Z');
    const date = new Date('2026-01-01T00:00:00Z');
    expect(timeOf(date)).toBe(date);
    expect(timeOf(null)).toBeNull();
    expect(timeOf('yesterday-ish')).toBeNull();
  });
});

describe('Message Nest channel kinds', () => {
  it('builds the WeCom robot URL from the key alone, or keeps a full URL', () => {
    const kind = MESSAGE_NEST_CHANNEL_KINDS.QyWeiXin;
    if ('unsupported' in kind) throw new Error('QyWeiXin is supported');
    const fromKey = kind.channel({ access_token: 'k1' }, []);
    if ('skip' in fromKey) throw new Error(fromKey.skip);
    expect(weComConfigSchema.parse(fromKey.config).webhookUrl).toBe(
      'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k1',
    );
    const fromUrl = kind.channel(
      { access_token: 'https://wecom.example/cgi-bin/webhook/send?key=k2' },
      [],
    );
    if ('skip' in fromUrl) throw new Error(fromUrl.skip);
    expect(fromUrl.config.webhookUrl).toBe('https://wecom.example/cgi-bin/webhook/send?key=k2');
  });

  it('maps a WeCom app, its members, departments and tags to a wecom_app channel', () => {
    const kind = MESSAGE_NEST_CHANNEL_KINDS.QyWeiXinApp;
    if ('unsupported' in kind) throw new Error('QyWeiXinApp is supported');
    const mapped = kind.channel(
      { corp_id: 'ww1', agent_id: '1000002', secret: 's', api_host: '', proxy_url: 'socks5://p:1' },
      [],
    );
    if ('skip' in mapped) throw new Error(mapped.skip);
    expect(mapped.config).toEqual({ corpId: 'ww1', agentId: 1000002, secret: 's' });
    expect(mapped.notes?.join()).toMatch(/socks5:\/\/ is not carried over/);
    expect(kind.instance?.({ to_user: 'a|b', to_party: '2', to_tag: '' }, {})).toEqual({
      recipient: 'a|b;party:2',
      dynamicRecipients: false,
    });
    expect(kind.instance?.({ allowMultiRecip: true }, {})).toEqual({
      recipient: '',
      dynamicRecipients: true,
    });
    expect(kind.instance?.({}, {})).toHaveProperty('skip');
  });

  it('gives an Aliyun SMS channel its instances’ most used template code, or none', () => {
    const kind = MESSAGE_NEST_CHANNEL_KINDS.AliyunSMS;
    if ('unsupported' in kind) throw new Error('AliyunSMS is supported');
    const auth = {
      access_key_id: 'id',
      access_key_secret: 'sec',
      sign_name: 'Nest',
      region_id: '',
    };
    const one = kind.channel(auth, [{ template_code: 'SMS_1' }, { template_code: 'SMS_1' }]);
    if ('skip' in one) throw new Error(one.skip);
    expect(one.config).toMatchObject({
      templateCode: 'SMS_1',
      regionId: 'cn-hangzhou',
      paramMap: { content: '{{content}}' },
    });
    const none = kind.channel(auth, []);
    if ('skip' in none) throw new Error(none.skip);
    expect(none.config).not.toHaveProperty('templateCode');
    const codeOf = (codes: string[]) => {
      const mapped = kind.channel(
        auth,
        codes.map((c) => ({ template_code: c })),
      );
      return 'skip' in mapped ? mapped.skip : mapped.config.templateCode;
    };
    expect(codeOf(['SMS_1', 'SMS_2', 'SMS_2'])).toBe('SMS_2');
    // Of equals, the first met.
    expect(codeOf(['SMS_3', 'SMS_1', 'SMS_1', 'SMS_3'])).toBe('SMS_3');
    expect(codeOf(['', 'SMS_4', ''])).toBe('SMS_4');
  });

  it('keeps an Aliyun SMS instance’s own template code where it is not its channel’s', () => {
    const kind = MESSAGE_NEST_CHANNEL_KINDS.AliyunSMS;
    if ('unsupported' in kind) throw new Error('AliyunSMS is supported');
    const channel = { templateCode: 'SMS_1' };
    expect(
      kind.instance?.({ phone_number: '13800000000', template_code: 'SMS_1' }, channel),
    ).toEqual({
      recipient: '13800000000',
      dynamicRecipients: false,
      notes: [],
    });
    expect(
      kind.instance?.({ phone_number: '13800000000', template_code: 'SMS_2' }, channel),
    ).toEqual({
      recipient: '13800000000',
      dynamicRecipients: false,
      templateCode: 'SMS_2',
      notes: [],
    });
    expect(kind.instance?.({ allowMultiRecip: true, template_code: 'SMS_2' }, channel)).toEqual({
      recipient: '',
      dynamicRecipients: true,
      templateCode: 'SMS_2',
      notes: [],
    });
    const inherits = kind.instance?.({ phone_number: '13800000000' }, channel);
    expect(inherits).toMatchObject({
      recipient: '13800000000',
      notes: [expect.stringMatching(/sends with its channel's \(SMS_1\)/)],
    });
    expect(inherits).not.toHaveProperty('templateCode');
    expect(kind.instance?.({ phone_number: '13800000000' }, {})).toEqual({
      skip: 'it names no SMS template code, nor does any other instance of its channel',
    });
    expect(
      kind.instance?.({ phone_number: '13800000000,13900000000', template_code: 'SMS_1' }, channel),
    ).toHaveProperty('skip');
  });

  it('maps PushMe’s key and keeps a self-hosted server only', () => {
    const kind = MESSAGE_NEST_CHANNEL_KINDS.PushMe;
    if ('unsupported' in kind) throw new Error('PushMe is supported');
    expect(kind.channel({ push_key: 'k', url: 'https://push.i-i.me/', date: '' }, [])).toEqual({
      config: { pushKey: 'k' },
      notes: [],
    });
    expect(kind.channel({ push_key: 'k', url: 'https://push.example/' }, [])).toMatchObject({
      config: { pushKey: 'k', serverUrl: 'https://push.example' },
    });
  });

  it('splits a custom webhook’s header lines into a plain content type and secret headers', () => {
    const kind = MESSAGE_NEST_CHANNEL_KINDS.Custom;
    if ('unsupported' in kind) throw new Error('Custom is supported');
    const mapped = kind.channel(
      {
        webhook: 'https://hook.example/x',
        header: 'X-Api-Key: abc\r\ncontent-type: text/plain\nbroken line',
        body: 'TEXT and TEXT',
      },
      [],
    );
    if ('skip' in mapped) throw new Error(mapped.skip);
    expect(mapped.config).toMatchObject({
      headers: { 'content-type': 'text/plain' },
      secretHeaders: { 'X-Api-Key': 'abc' },
      body: '{{content}} and {{content}}',
    });
  });
});
