import { ALIYUN_SMS_DEFAULT_PARAM_MAP } from '../../../channels/aliyun-sms';
import { text } from './values';

/** Message Nest's `send_ways.type` values (pkg/constant/constant.go). */
export const MESSAGE_NEST_WAY_TYPES = [
  'Email',
  'Dtalk',
  'QyWeiXin',
  'QyWeiXinApp',
  'Feishu',
  'Custom',
  'WeChatOFAccount',
  'MessageNest',
  'AliyunSMS',
  'Telegram',
  'Bark',
  'PushMe',
  'Ntfy',
  'Gotify',
] as const;
export type MessageNestWayType = (typeof MESSAGE_NEST_WAY_TYPES)[number];

type Auth = Record<string, unknown>;

/** A Herald channel config (still unvalidated: the adapter's schema checks it) and what was lost. */
export type MappedChannel =
  { config: Record<string, unknown>; notes?: string[] } | { skip: string };

/** What a Message Nest instance's `config` JSON means for a Herald instance of that kind. */
export type MappedInstance =
  | {
      recipient?: string;
      dynamicRecipients?: boolean;
      templateCode?: string;
      publicLink?: boolean;
      notes?: string[];
    }
  | { skip: string };

export interface ChannelKindMapping {
  /** Herald's channel type (server/channels/registry.ts). */
  heraldType: string;
  /** `instances`: the `config` of every Message Nest instance bound to this channel. */
  channel(auth: Auth, instances: ReadonlyArray<Record<string, unknown>>): MappedChannel;
  /**
   * Kinds with a recipient per instance (email address, OpenID, phone); others need none.
   * `channel` is the Herald channel's config as the import created it.
   */
  instance?(config: Record<string, unknown>, channel: Record<string, unknown>): MappedInstance;
}

/** A kind Herald cannot import (yet), with the reason the report gives. */
export interface UnsupportedKind {
  unsupported: string;
}

const s = (auth: Auth, key: string) => text(auth[key]).trim();

/** Message Nest stores either the secret alone or, for some users, the whole webhook URL. */
const urlOrKey = (value: string, build: (key: string) => string) =>
  /^https?:\/\//i.test(value) ? value : build(value);

const isDynamic = (config: Record<string, unknown>) =>
  config.allowMultiRecip === true || text(config.allowMultiRecip) === 'true';

/** Message Nest's "dynamic recipients" flag and fixed recipient of Email / WeChat instances. */
function recipientInstance(config: Record<string, unknown>): MappedInstance {
  if (isDynamic(config)) {
    return { dynamicRecipients: true, recipient: '' };
  }
  const to = text(config.to_account).trim();
  if (!to) return { skip: 'it has no recipient (to_account) and no dynamic recipients' };
  return { recipient: to, dynamicRecipients: false };
}

/**
 * How each Message Nest channel kind becomes a Herald channel. Adding a kind Herald gains is
 * one entry: replace its `{ unsupported }` with a mapping to the new Herald type.
 */
export const MESSAGE_NEST_CHANNEL_KINDS: Record<
  MessageNestWayType,
  ChannelKindMapping | UnsupportedKind
> = {
  Email: {
    heraldType: 'email',
    channel(auth) {
      const port = Number(auth.port);
      return {
        config: {
          host: s(auth, 'server'),
          port,
          // gomail: 465 is implicit TLS; any other port upgrades with STARTTLS.
          secure: port === 465 ? 'tls' : 'starttls',
          username: s(auth, 'account'),
          password: text(auth.passwd),
          from: s(auth, 'account'),
          fromName: s(auth, 'from_name'),
        },
      };
    },
    instance: recipientInstance,
  },
  Dtalk: {
    heraldType: 'dingtalk',
    channel: (auth) => ({
      config: {
        webhookUrl: urlOrKey(
          s(auth, 'access_token'),
          (k) => `https://oapi.dingtalk.com/robot/send?access_token=${encodeURIComponent(k)}`,
        ),
        secret: s(auth, 'secret'),
      },
    }),
  },
  QyWeiXin: {
    heraldType: 'wecom',
    channel: (auth) => ({
      config: {
        webhookUrl: urlOrKey(
          s(auth, 'access_token'),
          (k) => `https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=${encodeURIComponent(k)}`,
        ),
      },
    }),
  },
  Feishu: {
    heraldType: 'feishu',
    channel: (auth) => ({
      config: {
        webhookUrl: urlOrKey(
          s(auth, 'access_token'),
          (k) => `https://open.feishu.cn/open-apis/bot/v2/hook/${encodeURIComponent(k)}`,
        ),
        secret: s(auth, 'secret'),
      },
    }),
  },
  Custom: {
    heraldType: 'webhook',
    channel(auth) {
      const headers: Record<string, string> = {};
      const secretHeaders: Record<string, string> = {};
      for (const line of text(auth.header).split(/\r?\n/)) {
        const at = line.indexOf(':');
        if (at <= 0) continue;
        const name = line.slice(0, at).trim();
        const value = line.slice(at + 1).trim();
        if (!name) continue;
        // Message Nest keeps every header secret; only the content type is plainly not one.
        if (name.toLowerCase() === 'content-type') headers[name] = value;
        else secretHeaders[name] = value;
      }
      const body = text(auth.body);
      return {
        config: {
          url: s(auth, 'webhook'),
          method: 'POST',
          headers,
          secretHeaders,
          // Message Nest replaces the literal TEXT with the JSON-escaped text; Herald's
          // {{content}} inside a JSON string is filled the same way.
          ...(body.trim() ? { body: body.replace(/TEXT/g, '{{content}}') } : {}),
        },
      };
    },
  },
  WeChatOFAccount: {
    heraldType: 'wechat_official',
    channel: (auth) => ({
      config: {
        appId: s(auth, 'appID'),
        appSecret: s(auth, 'appsecret'),
        templateId: s(auth, 'tempid'),
      },
    }),
    instance: recipientInstance,
  },
  MessageNest: {
    heraldType: 'hosted',
    channel: () => ({ config: {} }),
    instance(config) {
      // Message Nest gave every hosted message a public link and answered it as
      // hostMessageUrl: the scripts moving over may read it.
      const publicLink = true;
      return text(config.blacklist_regex).trim()
        ? {
            publicLink,
            notes: [
              `its blacklist_regex (${text(config.blacklist_regex).trim()}) is not carried over: Herald stores every message`,
            ],
          }
        : { publicLink };
    },
  },
  Telegram: {
    heraldType: 'telegram',
    channel(auth) {
      const apiHost = s(auth, 'api_host');
      const proxy = apiHost ? '' : s(auth, 'proxy_url');
      const notes: string[] = [];
      const httpProxy = /^https?:\/\//i.test(proxy);
      if (proxy && !httpProxy) {
        notes.push(
          `its proxy ${proxy.split('://')[0]}:// is not carried over: Herald takes http(s) proxies`,
        );
      }
      return {
        config: {
          botToken: s(auth, 'bot_token'),
          chatId: s(auth, 'chat_id'),
          ...(apiHost ? { serverUrl: apiHost } : {}),
          ...(httpProxy ? { proxy } : {}),
        },
        notes,
      };
    },
  },
  Bark: {
    heraldType: 'bark',
    channel(auth) {
      if (s(auth, 'key') || s(auth, 'iv')) {
        return {
          skip: 'it encrypts pushes (key and iv), which Herald’s Bark channel does not: it would send them in clear',
        };
      }
      const pushKey = s(auth, 'push_key');
      let serverUrl: string | undefined;
      let deviceKey = pushKey;
      if (/^https?:\/\//i.test(pushKey)) {
        const url = new URL(pushKey);
        const parts = url.pathname.split('/').filter(Boolean);
        deviceKey = parts.pop() ?? '';
        serverUrl = `${url.origin}${parts.length ? `/${parts.join('/')}` : ''}`;
      }
      const notes: string[] = [];
      if (s(auth, 'url'))
        notes.push('its click URL is not carried over (Herald sends the message URL)');
      if (s(auth, 'archive')) notes.push('its archive setting is not carried over');
      return {
        config: {
          ...(serverUrl ? { serverUrl } : {}),
          deviceKey,
          group: s(auth, 'group'),
          sound: s(auth, 'sound'),
          icon: s(auth, 'icon'),
          level: s(auth, 'level'),
        },
        notes,
      };
    },
  },
  Ntfy: {
    heraldType: 'ntfy',
    channel(auth) {
      const priority = s(auth, 'priority');
      const notes: string[] = [];
      if (s(auth, 'icon')) notes.push('its icon is not carried over');
      if (s(auth, 'actions')) notes.push('its actions are not carried over');
      return {
        config: {
          serverUrl: s(auth, 'url'),
          topic: s(auth, 'topic'),
          token: s(auth, 'token'),
          username: s(auth, 'username'),
          password: text(auth.password),
          ...(priority ? { priority: /^\d+$/.test(priority) ? Number(priority) : priority } : {}),
        },
        notes,
      };
    },
  },
  Gotify: {
    heraldType: 'gotify',
    channel(auth) {
      const priority =
        auth.priority === '' || auth.priority == null ? undefined : Number(auth.priority);
      return {
        config: {
          serverUrl: s(auth, 'url'),
          appToken: s(auth, 'token'),
          ...(priority !== undefined && Number.isFinite(priority) ? { priority } : {}),
        },
      };
    },
  },
  // Being added to Herald in parallel (issue 13, part D): each becomes one mapping entry here.
  QyWeiXinApp: {
    heraldType: 'wecom_app',
    channel(auth) {
      const apiHost = s(auth, 'api_host').replace(/\/+$/, '');
      const proxy = s(auth, 'proxy_url');
      const httpProxy = /^https?:\/\//i.test(proxy);
      const notes: string[] = [];
      if (proxy && !httpProxy) {
        notes.push(
          `its proxy ${proxy.split('://')[0]}:// is not carried over: Herald takes http(s) proxies`,
        );
      }
      return {
        config: {
          corpId: s(auth, 'corp_id'),
          agentId: Number(s(auth, 'agent_id')),
          secret: s(auth, 'secret'),
          ...(apiHost && apiHost !== 'https://qyapi.weixin.qq.com' ? { apiBaseUrl: apiHost } : {}),
          ...(httpProxy ? { proxy } : {}),
        },
        notes,
      };
    },
    instance(config) {
      if (isDynamic(config)) return { dynamicRecipients: true, recipient: '' };
      // Herald's recipient: `;`-separated parts, members bare, `party:`/`tag:` prefixed; ids
      // within a part stay `|`-separated as Message Nest keeps them.
      const parts = [
        s(config, 'to_user'),
        s(config, 'to_party') && `party:${s(config, 'to_party')}`,
        s(config, 'to_tag') && `tag:${s(config, 'to_tag')}`,
      ].filter(Boolean);
      if (parts.length === 0)
        return { skip: 'it names no member, department or tag and has no dynamic recipients' };
      return { recipient: parts.join(';'), dynamicRecipients: false };
    },
  },
  AliyunSMS: {
    heraldType: 'aliyun_sms',
    channel(auth, instances) {
      // Message Nest keeps the SMS template code on each instance only. Herald's channel keeps
      // a default, its instances' most used code (none without instances), and each instance
      // with another code keeps its own (see instance() below).
      const code = mostUsed(instances.map((c) => s(c, 'template_code')).filter(Boolean));
      return {
        config: {
          accessKeyId: s(auth, 'access_key_id'),
          accessKeySecret: s(auth, 'access_key_secret'),
          signName: s(auth, 'sign_name'),
          regionId: s(auth, 'region_id') || 'cn-hangzhou',
          ...(code ? { templateCode: code } : {}),
          // Message Nest fills its template's one variable: {"content": text}, Herald's default.
          paramMap: { ...ALIYUN_SMS_DEFAULT_PARAM_MAP },
        },
      };
    },
    instance(config, channel) {
      const code = s(config, 'template_code');
      const fallback = typeof channel.templateCode === 'string' ? channel.templateCode : '';
      const notes: string[] = [];
      if (!code) {
        // Message Nest requires the code, so such an instance could not send there.
        if (!fallback) {
          return {
            skip: 'it names no SMS template code, nor does any other instance of its channel',
          };
        }
        notes.push(`it names no SMS template code, so it sends with its channel's (${fallback})`);
      }
      const templateCode = code && code !== fallback ? { templateCode: code } : {};
      if (isDynamic(config))
        return { dynamicRecipients: true, recipient: '', ...templateCode, notes };
      const phone = s(config, 'phone_number');
      if (!phone) return { skip: 'it has no phone number and no dynamic recipients' };
      if (/[,;\s|]/.test(phone)) {
        return {
          skip: `its phone_number holds several numbers (${phone}); Herald sends one number per instance: add an instance per number`,
        };
      }
      return { recipient: phone, dynamicRecipients: false, ...templateCode, notes };
    },
  },
  PushMe: {
    heraldType: 'pushme',
    channel(auth) {
      const url = s(auth, 'url').replace(/\/+$/, '');
      const notes: string[] = [];
      if (s(auth, 'date')) notes.push('its date is not carried over (PushMe stamps the time)');
      return {
        config: {
          pushKey: s(auth, 'push_key'),
          ...(url && url !== 'https://push.i-i.me' ? { serverUrl: url } : {}),
        },
        notes,
      };
    },
  },
};

/** The value met most often; of equals, the first met. Undefined for none. */
function mostUsed(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | undefined;
  for (const [v, n] of counts) if (best === undefined || n > (counts.get(best) ?? 0)) best = v;
  return best;
}

export function isWayType(value: string): value is MessageNestWayType {
  return (MESSAGE_NEST_WAY_TYPES as readonly string[]).includes(value);
}
