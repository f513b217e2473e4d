import { describe, expect, it } from 'vitest';

import { DeliveryError } from '../../../../server/channels/delivery-error';
import { throwOnErrcode } from '../../../../server/channels/errcode';
import {
  WECHAT_SEND_ERRCODES,
  buildWeChatTemplateBody,
  createWeChatOfficialAdapter,
  validateOpenId,
  weChatOfficialConfigSchema,
} from '../../../../server/channels/wechat-official';
import { WECHAT_TOKEN_ERRCODES } from '../../../../server/channels/wechat-token';
import { adapterRuntime, outboundMessage } from '../../../fixtures/peers/outbound-message';

const config = { appId: 'wx123', appSecret: 's3cret', templateId: 'tpl-1' };

describe('validateOpenId', () => {
  it('validateOpenId() accepts the OpenID shape', () => {
    expect(validateOpenId('oHERALD_follower-0001')).toBeNull();
    expect(validateOpenId('o6_bmjrPTlm6_2sgVt7hMZOPfL2M')).toBeNull();
  });

  it('validateOpenId() explains what is wrong with a malformed OpenID', () => {
    expect(validateOpenId('  ')).toBe('the OpenID is empty');
    expect(validateOpenId('oA, oB')).toMatch(/no spaces or commas/);
    expect(validateOpenId('o'.repeat(65))).toMatch(/longer than 64/);
    expect(validateOpenId('o+abc')).toMatch(/only letters, digits/);
  });
});

describe('buildWeChatTemplateBody', () => {
  it('buildWeChatTemplateBody() fills title and content and keys the message by delivery', () => {
    const message = outboundMessage({ url: 'https://example.com/detail/1' });
    const body = buildWeChatTemplateBody(message, config, 'oABC');
    expect(body).toEqual({
      touser: 'oABC',
      template_id: 'tpl-1',
      url: 'https://example.com/detail/1',
      client_msg_id: expect.stringMatching(
        new RegExp(`^herald-${message.deliveryId}-[0-9a-f]{12}$`),
      ),
      data: { title: { value: 'Disk alert' }, content: { value: 'web-3 at 98%' } },
    });
  });

  it('buildWeChatTemplateBody() leaves url out when the send has none', () => {
    expect(buildWeChatTemplateBody(outboundMessage(), config, 'oABC')).not.toHaveProperty('url');
  });
});

describe('weChatOfficialConfigSchema', () => {
  it('weChatOfficialConfigSchema trims a trailing slash off apiBaseUrl and drops an empty one', () => {
    expect(
      weChatOfficialConfigSchema.parse({ ...config, apiBaseUrl: 'http://127.0.0.1:8080/' })
        .apiBaseUrl,
    ).toBe('http://127.0.0.1:8080');
    expect(weChatOfficialConfigSchema.parse({ ...config, apiBaseUrl: '' }).apiBaseUrl).toBe(
      undefined,
    );
    expect(weChatOfficialConfigSchema.safeParse({ ...config, appSecret: '' }).success).toBe(false);
  });
});

describe('createWeChatOfficialAdapter', () => {
  const adapter = createWeChatOfficialAdapter();

  it('declares a required OpenID recipient, dynamic recipients and text only', () => {
    expect(adapter.type).toBe('wechat_official');
    expect(adapter.secretFields).toEqual(['appSecret']);
    expect(adapter.contentTypes).toEqual(['text']);
    expect(adapter.fixedRecipient).toBe('required');
    expect(adapter.supportsDynamicRecipients).toBe(true);
    expect(adapter.validateRecipient?.('bad id')).toMatch(/no spaces/);
  });

  it('send() refuses a malformed OpenID as permanent before fetching a token', async () => {
    const send = adapter.send(
      { ...config, apiBaseUrl: 'http://127.0.0.1:9' },
      outboundMessage({ recipient: 'a@b.c' }),
      adapterRuntime(),
    );
    await expect(send).rejects.toMatchObject({ retryable: false });
  });
});

describe('WeChat errcodes', () => {
  const classify = (rules: typeof WECHAT_SEND_ERRCODES, errcode: number): DeliveryError => {
    try {
      throwOnErrcode(
        { status: 200, headers: {}, text: '', json: { errcode, errmsg: 'x rid: 1' } },
        'WeChat',
        rules,
      );
    } catch (err) {
      return err as DeliveryError;
    }
    throw new Error('no error');
  };

  it('classifies token refusals as permanent and busy or quota as transient', () => {
    for (const code of [40013, 40125, 40164, 40001]) {
      expect(classify(WECHAT_TOKEN_ERRCODES, code).retryable).toBe(false);
    }
    expect(classify(WECHAT_TOKEN_ERRCODES, -1).retryable).toBe(true);
    expect(classify(WECHAT_TOKEN_ERRCODES, 45009).retryable).toBe(true);
  });

  it('classifies recipient and template errors of a send as permanent', () => {
    expect(classify(WECHAT_SEND_ERRCODES, 40003).message).toContain('not an OpenID');
    for (const code of [40003, 40037, 43004, 47001]) {
      expect(classify(WECHAT_SEND_ERRCODES, code).retryable).toBe(false);
    }
    expect(classify(WECHAT_SEND_ERRCODES, -1).retryable).toBe(true);
    expect(classify(WECHAT_SEND_ERRCODES, 45009).retryable).toBe(true);
  });
});
