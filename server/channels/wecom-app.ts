import type { z } from 'zod';

import { AccessTokenCache, tokenFromReply, type FetchedToken } from './access-token-cache';
import {
  WECOM_APP_DEFAULT_API_BASE_URL,
  weComAppConfig,
} from '../../contract/channel-kinds/wecom-app';

export { WECOM_APP_DEFAULT_API_BASE_URL };
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { joinUrl, rateLimitKey } from './channel-fields';
import { DeliveryError } from './delivery-error';
import { errcodeOf, throwOnErrcode, type ErrcodeRules } from './errcode';
import { httpRequest, replyOf, type HttpOptions } from './http-client';
import { utf8Bytes } from './platform-reply';

/** WeCom counts UTF-8 bytes of `content`; text beyond it is cut, markdown refused. */
export const WECOM_APP_MAX_CONTENT_BYTES = 2048;
/**
 * Per member per app WeCom accepts 30 messages a minute and silently drops the rest. Every
 * message of an app may reach the same member (a fixed recipient, `@all`), so the app as a
 * whole is paced to that.
 */
export const WECOM_APP_RATE = { max: 30, perMs: 60_000 } as const;
export const WECOM_APP_LIMITS = { users: 1000, parties: 100, tags: 100 } as const;

/** Send errcodes that mean "this access_token is no good": refresh once and retry once. */
export const WECOM_APP_TOKEN_REJECTED = new Set([40014, 41001, 42001]);

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const weComAppConfigSchema = weComAppConfig.schema;
export type WeComAppConfig = z.infer<typeof weComAppConfigSchema>;

/** Who one message goes to: WeCom's three `|`-separated lists (at least one non-empty). */
export interface WeComAppTarget {
  touser?: string;
  toparty?: string;
  totag?: string;
}

const USER_ID = /^[A-Za-z0-9_.@-]{1,64}$/;
const NUMERIC_ID = /^\d{1,20}$/;

type ParsedTarget = { target: WeComAppTarget } | { error: string };

/**
 * Reads a recipient: `;`-separated parts, each a list of ids separated by `|` or `,`. A bare
 * list is member ids (`zhangsan|lisi`, or `@all`); `party:` and `tag:` prefix department and
 * tag ids. Example: `zhangsan|lisi;party:2;tag:5`.
 */
export function parseWeComAppRecipient(recipient: string): ParsedTarget {
  const lists = { user: [] as string[], party: [] as string[], tag: [] as string[] };
  for (const raw of recipient.split(';')) {
    const part = raw.trim();
    if (!part) continue;
    const m = /^(user|party|tag)\s*:(.*)$/i.exec(part);
    const kind = (m?.[1].toLowerCase() ?? 'user') as keyof typeof lists;
    const ids = (m ? m[2] : part)
      .split(/[|,]/)
      .map((id) => id.trim())
      .filter(Boolean);
    if (ids.length === 0) return { error: `"${part}" names no ${kind} id` };
    for (const id of ids) {
      if (kind === 'user' ? !USER_ID.test(id) : !NUMERIC_ID.test(id)) {
        return {
          error:
            kind === 'user'
              ? `"${id}" is not a WeCom member id (letters, digits, "_", "-", ".", "@"; at most 64); write departments as party:2 and tags as tag:5`
              : `"${id}" is not a WeCom ${kind} id: ${kind} ids are numbers`,
        };
      }
    }
    lists[kind].push(...ids);
  }
  const unique = (ids: string[]) => [...new Set(ids)];
  const users = unique(lists.user);
  const parties = unique(lists.party);
  const tags = unique(lists.tag);
  if (users.length + parties.length + tags.length === 0) {
    return { error: 'no WeCom recipient given: name member ids, party:<id> or tag:<id>' };
  }
  if (users.length > WECOM_APP_LIMITS.users)
    return { error: `too many members: ${users.length}, WeCom takes at most 1000` };
  if (parties.length > WECOM_APP_LIMITS.parties)
    return { error: `too many departments: ${parties.length}, WeCom takes at most 100` };
  if (tags.length > WECOM_APP_LIMITS.tags)
    return { error: `too many tags: ${tags.length}, WeCom takes at most 100` };
  const target: WeComAppTarget = {};
  // `@all` reaches the app's whole visible range; WeCom ignores every other id beside it.
  if (users.includes('@all')) return { target: { touser: '@all' } };
  if (users.length) target.touser = users.join('|');
  if (parties.length) target.toparty = parties.join('|');
  if (tags.length) target.totag = tags.join('|');
  return { target };
}

/** Returns an error text for a malformed recipient, or null. */
export function validateWeComAppRecipient(recipient: string): string | null {
  const parsed = parseWeComAppRecipient(recipient);
  return 'error' in parsed ? parsed.error : null;
}

export type WeComAppBody = WeComAppTarget & { agentid: number } & (
    | { msgtype: 'text'; text: { content: string } }
    | { msgtype: 'markdown'; markdown: { content: string } }
  );

/**
 * The app message. WeCom has no title field: the title leads the content (a heading in
 * markdown) and the send's url follows it as a link.
 */
export function buildWeComAppBody(
  config: Pick<WeComAppConfig, 'agentId'>,
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url'>,
  target: WeComAppTarget,
): WeComAppBody {
  const title = message.title.replace(/\s+/g, ' ').trim();
  if (message.contentType === 'markdown') {
    const content = [
      title ? `### ${title}` : '',
      message.content,
      message.url ? `[${message.url}](${message.url})` : '',
    ]
      .filter(Boolean)
      .join('\n\n');
    return { ...target, msgtype: 'markdown', agentid: config.agentId, markdown: { content } };
  }
  const content = [title, message.content, message.url ?? ''].filter(Boolean).join('\n');
  return { ...target, msgtype: 'text', agentid: config.agentId, text: { content } };
}

/**
 * Content over 2,048 bytes is refused before any request: WeCom cuts text silently, and a
 * message split in parts could not be retried as one.
 */
export function assertWeComAppSize(body: WeComAppBody): void {
  const content = body.msgtype === 'text' ? body.text.content : body.markdown.content;
  const bytes = utf8Bytes(content);
  if (bytes > WECOM_APP_MAX_CONTENT_BYTES) {
    throw DeliveryError.permanent(
      `message too large for a WeCom app: ${body.msgtype} content is ${bytes} bytes (title and link included), WeCom accepts at most ${WECOM_APP_MAX_CONTENT_BYTES}; shorten the content`,
    );
  }
}

const TRUSTED_IP_HINT =
  'this machine’s IP is not among the app’s trusted IPs (企业可信IP); add it, or set apiBaseUrl to a fixed-IP proxy';

export const WECOM_APP_TOKEN_ERRCODES: ErrcodeRules = {
  transient: [-1, 45009, 45033],
  hints: {
    40001: 'secret is wrong: use the Secret of this app (应用管理 → the app)',
    40013: 'corpId is wrong',
    40091: 'secret is not a secret of this corp',
    41002: 'corpId is missing',
    41004: 'secret is missing',
    60020: TRUSTED_IP_HINT,
    45009: 'WeCom’s API frequency limit; try again later',
  },
};

export const WECOM_APP_SEND_ERRCODES: ErrcodeRules = {
  // Token codes are transient here: they only reach this point after one refresh and retry,
  // which means another program is refreshing the same app's token right now.
  transient: [-1, 45009, 45033, ...WECOM_APP_TOKEN_REJECTED],
  hints: {
    40056: 'agentId is not an app of this corp',
    41011: 'agentId is missing',
    301002: 'agentId is not the app whose secret is configured',
    44004: 'the message is empty',
    45002: 'the content is too large',
    40058: 'a field is invalid; errmsg names it',
    81013: 'none of the recipients is valid or visible to the app',
    82002: 'more than 100 departments',
    82003: 'more than 100 tags',
    60020: TRUSTED_IP_HINT,
    48002: 'the app may not use this API',
    50003: 'the app is disabled',
    45009: 'WeCom’s API frequency limit; try again later',
    45033: 'too many concurrent calls',
  },
};

interface WeComAppAccount {
  apiBaseUrl: string;
  corpId: string;
  secret: string;
  options: HttpOptions;
}

async function fetchWeComAppToken(account: WeComAppAccount): Promise<FetchedToken> {
  const url = new URL(joinUrl(account.apiBaseUrl, 'cgi-bin/gettoken'));
  url.searchParams.set('corpid', account.corpId);
  url.searchParams.set('corpsecret', account.secret);
  const res = await httpRequest({ method: 'GET', url: url.toString(), options: account.options });
  const body = throwOnErrcode(res, 'WeCom token endpoint', WECOM_APP_TOKEN_ERRCODES);
  return tokenFromReply(body, res, 'WeCom token endpoint');
}

/** WeCom's token cache: one token per (apiBaseUrl, corpId, secret), i.e. per app. */
export class WeComAppTokenCache extends AccessTokenCache<WeComAppAccount> {
  constructor() {
    super((a) => [a.apiBaseUrl, a.corpId, a.secret], fetchWeComAppToken);
  }
}

/** Names the recipients WeCom could not reach; the message still went to the others. */
export function weComAppReceipt(reply: Record<string, unknown>, raw: string): string {
  const invalid = (['invaliduser', 'invalidparty', 'invalidtag', 'unlicenseduser'] as const)
    .map((key) => [key, reply[key]] as const)
    .filter(([, v]) => typeof v === 'string' && v.trim())
    .map(([k, v]) => `${k}: ${String(v)}`);
  return invalid.length ? `${raw} (not delivered to ${invalid.join('; ')})` : raw;
}

/**
 * WeCom self-built app (企业微信自建应用): an app message to members, departments or tags.
 * The access_token is cached in this factory's closure, so every channel of one app shares it.
 */
export function createWeComAppAdapter() {
  const tokens = new WeComAppTokenCache();

  return defineAdapter({
    type: 'wecom_app',
    label: 'WeCom app',
    ...configOf(weComAppConfig),
    contentTypes: ['text', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: true,
    fixedRecipient: 'required',
    validateRecipient: validateWeComAppRecipient,
    rateLimit(config) {
      return {
        key: rateLimitKey('wecom_app', config.corpId, String(config.agentId)),
        ...WECOM_APP_RATE,
      };
    },
    async send(config, given, services) {
      // Files reach the chat as links at the end of the content (its markdown has no images: a link).
      const message = withAttachmentLinks(given, { images: false });
      const parsed = parseWeComAppRecipient(message.recipient ?? '');
      if ('error' in parsed) throw DeliveryError.permanent(parsed.error);
      const body = buildWeComAppBody(config, message, parsed.target);
      assertWeComAppSize(body);

      const apiBaseUrl = config.apiBaseUrl ?? WECOM_APP_DEFAULT_API_BASE_URL;
      const account: WeComAppAccount = {
        apiBaseUrl,
        corpId: config.corpId,
        secret: config.secret,
        options: config,
      };
      const json = JSON.stringify(body);
      const post = (token: string) =>
        httpRequest({
          url: `${joinUrl(apiBaseUrl, 'cgi-bin/message/send')}?access_token=${encodeURIComponent(token)}`,
          headers: { 'Content-Type': 'application/json;charset=utf-8' },
          body: json,
          options: config,
        });

      const token = await tokens.get(account, services.clock.now());
      let res = await post(token);
      const code = errcodeOf(res);
      if (code !== undefined && WECOM_APP_TOKEN_REJECTED.has(code)) {
        res = await post(await tokens.get(account, services.clock.now(), token));
      }
      const reply = throwOnErrcode(res, 'WeCom', WECOM_APP_SEND_ERRCODES);
      return { reply: weComAppReceipt(reply, replyOf(res)) };
    },
  });
}
