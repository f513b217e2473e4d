import { describe, expect, it } from 'vitest';

import {
  aliyunPercentEncode,
  aliyunSignature,
  aliyunStringToSign,
  aliyunSmsConfigSchema,
  aliyunTimestamp,
  buildSendSmsParams,
  buildTemplateParam,
  checkAliyunSmsReply,
  signedFormBody,
  validatePhoneNumber,
} from '../../../../server/channels/aliyun-sms';
import { httpReply, thrownBy } from '../../../fixtures/peers/expect-delivery-error';

/** Aliyun's own documentation example (channels.md §12.2), signed with GET. */
const OFFICIAL_EXAMPLE = {
  AccessKeyId: 'testId',
  Action: 'SendSms',
  Format: 'XML',
  OutId: '123',
  PhoneNumbers: '15300000001',
  RegionId: 'cn-hangzhou',
  SignName: '阿里云短信测试专用',
  SignatureMethod: 'HMAC-SHA1',
  SignatureNonce: '45e25e9b-0a6f-4070-8c85-2956eda1b466',
  SignatureVersion: '1.0',
  TemplateCode: 'SMS_71390007',
  TemplateParam: '{"customer":"test"}',
  Timestamp: '2017-07-12T02:42:19Z',
  Version: '2017-05-25',
};

/** The fact sheet's own vector: JSON, no OutId, signed both ways. */
const OWN_VECTOR = {
  ...OFFICIAL_EXAMPLE,
  Format: 'JSON',
  PhoneNumbers: '13800000000',
  SignName: 'Demo',
  SignatureNonce: 'nonce-0001',
  TemplateCode: 'SMS_000001',
  TemplateParam: '{"code":"1234"}',
  Timestamp: '2024-01-01T00:00:00Z',
} as Record<string, string>;
delete OWN_VECTOR.OutId;

describe('Aliyun signature 1.0', () => {
  it('aliyunPercentEncode() keeps only unreserved characters and upper-cases the rest', () => {
    expect(aliyunPercentEncode("a-Z_0.9~ *+!'()/:=&")).toBe(
      'a-Z_0.9~%20%2A%2B%21%27%28%29%2F%3A%3D%26',
    );
    expect(aliyunPercentEncode('短信')).toBe('%E7%9F%AD%E4%BF%A1');
  });

  it('aliyunSignature() reproduces the official documentation example', () => {
    const toSign = aliyunStringToSign('GET', OFFICIAL_EXAMPLE);
    expect(
      toSign.startsWith(
        'GET&%2F&AccessKeyId%3DtestId%26Action%3DSendSms%26Format%3DXML%26OutId%3D123',
      ),
    ).toBe(true);
    expect(
      toSign.endsWith('%26Timestamp%3D2017-07-12T02%253A42%253A19Z%26Version%3D2017-05-25'),
    ).toBe(true);
    expect(aliyunSignature('GET', OFFICIAL_EXAMPLE, 'testSecret')).toBe(
      'zJDF+Lrzhj/ThnlvIToysFRq6t4=',
    );
  });

  it('aliyunSignature() matches the known GET and POST vectors and ignores a Signature param', () => {
    expect(aliyunSignature('GET', OWN_VECTOR, 'testSecret')).toBe('UR3UPu+wKU45pPSrxZtAiQU0Rd0=');
    expect(aliyunSignature('POST', OWN_VECTOR, 'testSecret')).toBe('48WdFI1dGVZhDiHH8r6FGnRpvbA=');
    expect(aliyunSignature('POST', { ...OWN_VECTOR, Signature: 'x' }, 'testSecret')).toBe(
      '48WdFI1dGVZhDiHH8r6FGnRpvbA=',
    );
  });

  it('signedFormBody() sends the POST signature percent-encoded beside the sorted params', () => {
    const body = new URLSearchParams(signedFormBody(OWN_VECTOR, 'testSecret'));
    expect(body.get('Signature')).toBe('48WdFI1dGVZhDiHH8r6FGnRpvbA=');
    expect(body.get('SignName')).toBe('Demo');
    expect(signedFormBody(OWN_VECTOR, 'testSecret')).toContain(
      'Signature=48WdFI1dGVZhDiHH8r6FGnRpvbA%3D',
    );
  });
});

describe('Aliyun SMS request', () => {
  const config = aliyunSmsConfigSchema.parse({
    accessKeyId: 'LTAI-test',
    accessKeySecret: 'secret',
    signName: '阿里云',
    templateCode: 'SMS_123',
  });
  const message = { deliveryId: 7, title: 'Disk alert', content: 'web-3 at 98%', url: null };

  it('the config defaults paramMap to {"content":"{{content}}"}, region cn-hangzhou and dysmsapi', () => {
    expect(config).toMatchObject({
      paramMap: { content: '{{content}}' },
      regionId: 'cn-hangzhou',
      endpoint: 'https://dysmsapi.aliyuncs.com',
    });
    const bad = aliyunSmsConfigSchema.safeParse({ ...config, paramMap: { 'bad key': 'x' } });
    expect(bad.success).toBe(false);
  });

  it('buildTemplateParam() fills markers and keeps literal text, every value a string', () => {
    const param = buildTemplateParam(
      { name: '{{title}}', detail: '{{ content }} ({{url}})', service: 'Herald' },
      { ...message, url: 'https://x.example/1' },
    );
    expect(JSON.parse(param)).toEqual({
      name: 'Disk alert',
      detail: 'web-3 at 98% (https://x.example/1)',
      service: 'Herald',
    });
  });

  it('buildSendSmsParams() names every SendSms and common parameter', () => {
    const params = buildSendSmsParams(config, message, '13800000000', {
      nonce: 'n-1',
      timestamp: aliyunTimestamp(Date.UTC(2026, 0, 2, 3, 4, 5, 678)),
    });
    expect(params).toEqual({
      AccessKeyId: 'LTAI-test',
      Action: 'SendSms',
      Format: 'JSON',
      OutId: expect.stringMatching(/^herald-7-[0-9a-f]{12}$/),
      PhoneNumbers: '13800000000',
      RegionId: 'cn-hangzhou',
      SignName: '阿里云',
      SignatureMethod: 'HMAC-SHA1',
      SignatureNonce: 'n-1',
      SignatureVersion: '1.0',
      TemplateCode: 'SMS_123',
      TemplateParam: '{"content":"web-3 at 98%"}',
      Timestamp: '2026-01-02T03:04:05Z',
      Version: '2017-05-25',
    });
    const noVars = buildSendSmsParams({ ...config, paramMap: {} }, message, '1380000000', {
      nonce: 'n',
      timestamp: 't',
    });
    expect(noVars).not.toHaveProperty('TemplateParam');
  });

  it('validatePhoneNumber() takes one number and names what is wrong', () => {
    expect(validatePhoneNumber('13800000000')).toBeNull();
    expect(validatePhoneNumber('+85212345678')).toBeNull();
    expect(validatePhoneNumber('13800000000,13900000000')).toMatch(/several phone numbers/);
    expect(validatePhoneNumber('ops@example.com')).toMatch(/is not a phone number/);
    expect(validatePhoneNumber(' ')).toBe('no phone number given');
  });
});

describe('Aliyun SMS replies', () => {
  it('checkAliyunSmsReply() accepts Code OK only', () => {
    expect(() =>
      checkAliyunSmsReply(httpReply({ Code: 'OK', Message: 'OK', BizId: '1^0', RequestId: 'r' })),
    ).not.toThrow();
    const err = thrownBy(() => checkAliyunSmsReply(httpReply('<html>portal</html>')));
    expect(err.retryable).toBe(false);
  });

  it('checkAliyunSmsReply() retries flow control and throttling, after a minute for flow control', () => {
    const limit = thrownBy(() =>
      checkAliyunSmsReply(
        httpReply({ Code: 'isv.BUSINESS_LIMIT_CONTROL', Message: '触发分钟级流控Permits:1' }),
      ),
    );
    expect(limit).toMatchObject({ retryable: true, retryAfterMs: 60_000 });
    expect(limit.message).toContain('isv.BUSINESS_LIMIT_CONTROL 触发分钟级流控Permits:1');
    const throttled = thrownBy(() =>
      checkAliyunSmsReply(
        httpReply({ Code: 'Throttling.User', Message: 'Request was denied' }, 400),
      ),
    );
    expect(throttled.retryable).toBe(true);
    expect(thrownBy(() => checkAliyunSmsReply(httpReply('bad gateway', 502))).retryable).toBe(true);
  });

  it('checkAliyunSmsReply() fails at once on a wrong secret, sign name or number, with a hint', () => {
    const sig = thrownBy(() =>
      checkAliyunSmsReply(
        httpReply(
          { Code: 'SignatureDoesNotMatch', Message: 'Specified signature is not matched' },
          400,
        ),
      ),
    );
    expect(sig.retryable).toBe(false);
    expect(sig.message).toContain('accessKeySecret is wrong');
    const sign = thrownBy(() =>
      checkAliyunSmsReply(httpReply({ Code: 'isv.SMS_SIGNATURE_ILLEGAL', Message: 'x' })),
    );
    expect(sign.retryable).toBe(false);
    expect(sign.message).toContain('signName');
    const mobile = thrownBy(() =>
      checkAliyunSmsReply(httpReply({ Code: 'isv.MOBILE_NUMBER_ILLEGAL', Message: 'x' })),
    );
    expect(mobile.retryable).toBe(false);
  });
});
