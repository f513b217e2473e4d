import { createHmac, randomUUID } from 'node:crypto';

import type { z } from 'zod';

import {
  ALIYUN_SMS_DEFAULT_ENDPOINT,
  ALIYUN_SMS_DEFAULT_PARAM_MAP,
  validateTemplateCode,
  aliyunSmsConfig,
} from '../../contract/channel-kinds/aliyun-sms';

export { ALIYUN_SMS_DEFAULT_ENDPOINT, ALIYUN_SMS_DEFAULT_PARAM_MAP, validateTemplateCode };
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { deliveryDedupId } from './dedup-id';
import { DeliveryError } from './delivery-error';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
import { assertHttpOkWith, jsonObjectOf, stringField } from './platform-reply';

/** Flow control on one number (1 a minute for codes) clears within a minute at the earliest. */
export const ALIYUN_SMS_LIMIT_WAIT_MS = 60_000;

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const aliyunSmsConfigSchema = aliyunSmsConfig.schema;
export type AliyunSmsConfig = z.infer<typeof aliyunSmsConfigSchema>;

const PHONE = /^\+?\d{5,20}$/;

/** Returns an error text unless the recipient is one phone number, or null. */
export function validatePhoneNumber(recipient: string): string | null {
  const phone = recipient.trim();
  if (!phone) return 'no phone number given';
  if (/[,;，\s]/.test(phone) && phone.split(/[,;，\s]+/).filter(Boolean).length > 1) {
    return `"${phone}" holds several phone numbers: give one number per recipient (dynamic recipients send one SMS each)`;
  }
  if (!PHONE.test(phone)) {
    return `"${phone}" is not a phone number: digits only, mainland numbers bare (13800000000), others with their country code (+85212345678)`;
  }
  return null;
}

/** Fills one paramMap value: markers become the message's fields, the rest stays as written. */
export function fillParam(
  value: string,
  message: Pick<OutboundMessage, 'title' | 'content' | 'url'>,
): string {
  return value.replace(/\{\{\s*(title|content|url)\s*\}\}/g, (_m, key: string) =>
    key === 'title' ? message.title : key === 'content' ? message.content : (message.url ?? ''),
  );
}

/** The TemplateParam JSON string: every value a string, as Aliyun requires. */
export function buildTemplateParam(
  paramMap: Readonly<Record<string, string>>,
  message: Pick<OutboundMessage, 'title' | 'content' | 'url'>,
): string {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(paramMap)) params[key] = fillParam(value, message);
  return JSON.stringify(params);
}

/** Aliyun's timestamp: UTC, whole seconds, `yyyy-MM-ddTHH:mm:ssZ`. */
export function aliyunTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The SendSms parameters of one SMS, without the Signature. */
export function buildSendSmsParams(
  config: Pick<
    AliyunSmsConfig,
    'accessKeyId' | 'signName' | 'templateCode' | 'paramMap' | 'regionId'
  >,
  message: Pick<OutboundMessage, 'deliveryId' | 'title' | 'content' | 'url' | 'templateCode'>,
  phone: string,
  request: { nonce: string; timestamp: string },
): Record<string, string> {
  const templateCode = message.templateCode || config.templateCode;
  if (!templateCode) {
    throw DeliveryError.permanent(
      'no SMS template code: name one on the instance, or a default on the channel',
    );
  }
  const params: Record<string, string> = {
    AccessKeyId: config.accessKeyId,
    Action: 'SendSms',
    Format: 'JSON',
    // Echoed in delivery receipts: after a timeout the receipt says whether the SMS went out.
    OutId: deliveryDedupId(message),
    PhoneNumbers: phone,
    RegionId: config.regionId,
    SignName: config.signName,
    SignatureMethod: 'HMAC-SHA1',
    SignatureNonce: request.nonce,
    SignatureVersion: '1.0',
    TemplateCode: templateCode,
    Timestamp: request.timestamp,
    Version: '2017-05-25',
  };
  if (Object.keys(config.paramMap).length > 0) {
    params.TemplateParam = buildTemplateParam(config.paramMap, message);
  }
  return params;
}

/** RFC 3986 percent-encoding of UTF-8, upper-case hex, as Aliyun's signature 1.0 wants. */
export function aliyunPercentEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** StringToSign of signature 1.0: METHOD&%2F&enc(sorted enc(k)=enc(v) joined by &). */
export function aliyunStringToSign(method: 'GET' | 'POST', params: Record<string, string>): string {
  const canonical = Object.keys(params)
    .filter((k) => k !== 'Signature')
    .sort()
    .map((k) => `${aliyunPercentEncode(k)}=${aliyunPercentEncode(params[k])}`)
    .join('&');
  return `${method}&${aliyunPercentEncode('/')}&${aliyunPercentEncode(canonical)}`;
}

/** Base64(HMAC-SHA1(secret + "&", StringToSign)). */
export function aliyunSignature(
  method: 'GET' | 'POST',
  params: Record<string, string>,
  accessKeySecret: string,
): string {
  return createHmac('sha1', `${accessKeySecret}&`)
    .update(aliyunStringToSign(method, params))
    .digest('base64');
}

/** The signed form body of a POST. */
export function signedFormBody(params: Record<string, string>, accessKeySecret: string): string {
  const signed: Record<string, string> = {
    ...params,
    Signature: aliyunSignature('POST', params, accessKeySecret),
  };
  return Object.keys(signed)
    .sort()
    .map((k) => `${aliyunPercentEncode(k)}=${aliyunPercentEncode(signed[k])}`)
    .join('&');
}

/** Codes a later attempt can get past: flow control, throttling, Aliyun being busy. */
export const ALIYUN_SMS_TRANSIENT_CODES = new Set([
  'isv.BUSINESS_LIMIT_CONTROL',
  'isp.SYSTEM_ERROR',
  'Throttling',
  'Throttling.User',
  'Throttling.Api',
  'ServiceUnavailable',
  'InternalError',
  // A retry signs with a fresh nonce.
  'SignatureNonceUsed',
]);

export const ALIYUN_SMS_HINTS: Readonly<Record<string, string>> = {
  'InvalidAccessKeyId.NotFound': 'accessKeyId is wrong',
  'InvalidAccessKeyId.Inactive': 'the AccessKey is disabled',
  SignatureDoesNotMatch: 'accessKeySecret is wrong',
  'InvalidTimeStamp.Expired': 'this machine’s clock is off by more than 15 minutes',
  'isv.SMS_SIGNATURE_ILLEGAL': 'signName is not an approved signature of this account',
  'isv.SMS_TEMPLATE_ILLEGAL': 'templateCode is not an approved template of this account',
  'isv.TEMPLATE_MISSING_PARAMETERS': 'paramMap lacks a variable the template uses',
  'isv.INVALID_JSON_PARAM': 'paramMap values must fill the template’s variables',
  'isv.MOBILE_NUMBER_ILLEGAL': 'the phone number is not valid',
  'isv.AMOUNT_NOT_ENOUGH': 'the account balance is too low',
  'isv.OUT_OF_SERVICE': 'the account is out of service (overdue)',
  'isv.DENY_IP_RANGE': 'Aliyun refuses this machine’s IP range',
  'isp.RAM_PERMISSION_DENY': 'the AccessKey’s RAM user lacks dysms:SendSms',
  'isv.BUSINESS_LIMIT_CONTROL': 'flow control on this number; retried later',
};

/** Success is `Code: "OK"`; everything else names its Code, retried only when it can pass. */
export function checkAliyunSmsReply(res: HttpResponse): void {
  const body = jsonObjectOf(res);
  const code = stringField(body, 'Code');
  if (res.status >= 200 && res.status < 300 && code === 'OK') return;
  const reason =
    code === undefined
      ? undefined
      : `${code}${stringField(body, 'Message') ? ` ${stringField(body, 'Message')}` : ''}`;
  const hint = code === undefined ? undefined : ALIYUN_SMS_HINTS[code];
  const transient = code !== undefined && ALIYUN_SMS_TRANSIENT_CODES.has(code);
  const retryAfterMs = code === 'isv.BUSINESS_LIMIT_CONTROL' ? ALIYUN_SMS_LIMIT_WAIT_MS : undefined;
  // Gateway errors come with a 4xx status; business errors with 200 and a Code.
  assertHttpOkWith(res, 'Aliyun SMS', {
    reason,
    hint,
    retryable: transient ? true : undefined,
    retryAfterMs,
  });
  const reply = replyOf(res);
  const message =
    code === undefined
      ? 'Aliyun SMS answered with something that is not its API'
      : `Aliyun SMS refused the message: ${reason}${hint ? ` (${hint})` : ''}`;
  throw transient
    ? DeliveryError.transient(message, { reply, retryAfterMs })
    : DeliveryError.permanent(message, { reply });
}

/**
 * Aliyun SMS (dysmsapi SendSms, signature 1.0): one template SMS to one phone number per
 * delivery, so one bad number never fails the others. The title and content reach the SMS only
 * through `paramMap`: an SMS is an approved template, not free text.
 */
export function createAliyunSmsAdapter() {
  return defineAdapter({
    type: 'aliyun_sms',
    label: 'Aliyun SMS',
    ...configOf(aliyunSmsConfig),
    contentTypes: ['text'],
    supportsMentions: false,
    supportsDynamicRecipients: true,
    fixedRecipient: 'required',
    validateRecipient: validatePhoneNumber,
    instanceTemplateCode: {
      validate: validateTemplateCode,
      channelDefault: (config) =>
        typeof config.templateCode === 'string' && config.templateCode ? config.templateCode : null,
    },
    async send(config, given, services) {
      // Files reach the reader as links at the end of the content, in its format.
      const message = withAttachmentLinks(given, { images: false });
      const phone = message.recipient?.trim() ?? '';
      const invalid = validatePhoneNumber(phone);
      if (invalid) throw DeliveryError.permanent(invalid);
      const params = buildSendSmsParams(config, message, phone, {
        nonce: randomUUID(),
        timestamp: aliyunTimestamp(services.clock.now()),
      });
      const res = await httpRequest({
        url: `${config.endpoint}/`,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: signedFormBody(params, config.accessKeySecret),
        options: config,
      });
      checkAliyunSmsReply(res);
      const bizId = stringField(jsonObjectOf(res), 'BizId');
      return { reply: bizId ? `BizId ${bizId}` : replyOf(res) };
    },
  });
}
