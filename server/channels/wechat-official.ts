import type { z } from 'zod';

import {
  WECHAT_DEFAULT_API_BASE_URL,
  weChatOfficialConfig,
} from '../../contract/channel-kinds/wechat-official';

export { WECHAT_DEFAULT_API_BASE_URL };
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { deliveryDedupId } from './dedup-id';
import { DeliveryError } from './delivery-error';
import { errcodeOf, throwOnErrcode, type ErrcodeRules } from './errcode';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
import { WeChatTokenCache } from './wechat-token';

export const OPENID_MAX_LENGTH = 64;

/** Send-call errcodes that mean "this access_token is no good": refresh once and retry once. */
export const WECHAT_TOKEN_REJECTED = new Set([40001, 40014, 41001, 42001]);

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const weChatOfficialConfigSchema = weChatOfficialConfig.schema;
export type WeChatOfficialConfig = z.infer<typeof weChatOfficialConfigSchema>;

/** Returns an error text for a malformed OpenID, or null. */
export function validateOpenId(recipient: string): string | null {
  const id = recipient.trim();
  if (!id) return 'the OpenID is empty';
  if (/[\s,;]/.test(id)) {
    return `"${id}" is not one OpenID: an OpenID has no spaces or commas (give each recipient separately)`;
  }
  if (id.length > OPENID_MAX_LENGTH) {
    return `"${id.slice(0, 16)}…" is not an OpenID: it is longer than ${OPENID_MAX_LENGTH} characters`;
  }
  if (!/^[A-Za-z0-9_-]+$/.test(id)) {
    return `"${id}" is not an OpenID: only letters, digits, "_" and "-" are allowed`;
  }
  return null;
}

/** The template-message body WeChat expects. */
export interface WeChatTemplateBody {
  touser: string;
  template_id: string;
  url?: string;
  client_msg_id: string;
  data: { title: { value: string }; content: { value: string } };
}

/** Builds the template message: the send's title and text fill `title` and `content`. */
export function buildWeChatTemplateBody(
  message: Pick<OutboundMessage, 'deliveryId' | 'title' | 'content' | 'url'>,
  config: Pick<WeChatOfficialConfig, 'templateId'>,
  openId: string,
): WeChatTemplateBody {
  const body: WeChatTemplateBody = {
    touser: openId,
    template_id: config.templateId,
    client_msg_id: deliveryDedupId(message),
    data: { title: { value: message.title }, content: { value: message.content } },
  };
  if (message.url) body.url = message.url;
  return body;
}

export const WECHAT_SEND_ERRCODES: ErrcodeRules = {
  // Token codes are transient here: they only reach this point after one refresh and retry,
  // which means another program is refreshing the same account's token right now.
  transient: [-1, 45009, ...WECHAT_TOKEN_REJECTED],
  hints: {
    40003: 'the recipient is not an OpenID of this official account',
    40037: 'templateId is not a template of this official account',
    43004: 'the recipient does not follow the official account',
    45009: 'the account’s API quota is used up for now',
    47001: 'the template’s placeholders must be {{title.DATA}} and {{content.DATA}}',
  },
};

/**
 * WeChat official account (the test account), as a template message to one OpenID. The
 * access_token cache lives in this factory's closure: one per server, shared by all channels.
 */
export function createWeChatOfficialAdapter() {
  const tokens = new WeChatTokenCache();

  return defineAdapter({
    type: 'wechat_official',
    label: 'WeChat official account',
    ...configOf(weChatOfficialConfig),
    contentTypes: ['text'],
    supportsMentions: false,
    supportsDynamicRecipients: true,
    fixedRecipient: 'required',
    validateRecipient: validateOpenId,
    async send(config, given, runtime) {
      // Files reach the reader as links at the end of the content, in its format.
      const message = withAttachmentLinks(given, { images: false });
      const openId = message.recipient?.trim() ?? '';
      const invalid = validateOpenId(openId);
      if (invalid) throw DeliveryError.permanent(invalid);

      const apiBaseUrl = config.apiBaseUrl ?? WECHAT_DEFAULT_API_BASE_URL;
      const account = {
        apiBaseUrl,
        appId: config.appId,
        appSecret: config.appSecret,
        options: config,
      };
      const body = JSON.stringify(buildWeChatTemplateBody(message, config, openId));
      const post = (token: string): Promise<HttpResponse> =>
        httpRequest({
          url: `${apiBaseUrl}/cgi-bin/message/template/send?access_token=${encodeURIComponent(token)}`,
          headers: { 'Content-Type': 'application/json;charset=utf-8' },
          body,
          options: config,
        });

      const token = await tokens.get(account, runtime.clock.now());
      let res = await post(token);
      const code = errcodeOf(res);
      if (code !== undefined && WECHAT_TOKEN_REJECTED.has(code)) {
        res = await post(await tokens.get(account, runtime.clock.now(), token));
      }
      throwOnErrcode(res, 'WeChat', WECHAT_SEND_ERRCODES);
      return { reply: replyOf(res) };
    },
  });
}
