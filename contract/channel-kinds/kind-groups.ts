import type { ChannelKind } from './kinds';

/**
 * How the console's channel dialog offers the kinds: a grid, grouped, each kind with an icon
 * and a short description (its i18n key is `channelSummary.<kind>`). Declared here once and
 * served by GET /channel-types, so the console keeps no list of kinds of its own.
 */

/** The groups, in the order the dialog shows them. */
export const CHANNEL_GROUPS = ['chinese', 'chat', 'push', 'email_webhook', 'hosted'] as const;
export type ChannelGroup = (typeof CHANNEL_GROUPS)[number];

/** What a kind's icon shows; the console draws each with an icon of its own. */
export const CHANNEL_ICONS = [
  'robot',
  'app',
  'official-account',
  'sms',
  'chat',
  'push',
  'mail',
  'webhook',
  'inbox',
] as const;
export type ChannelIcon = (typeof CHANNEL_ICONS)[number];

/** Each kind's group and icon; a kind missing here is a compile error. */
export const CHANNEL_KIND_GROUPS: {
  readonly [K in ChannelKind]: { readonly group: ChannelGroup; readonly icon: ChannelIcon };
} = {
  dingtalk: { group: 'chinese', icon: 'robot' },
  wecom: { group: 'chinese', icon: 'robot' },
  feishu: { group: 'chinese', icon: 'robot' },
  wecom_app: { group: 'chinese', icon: 'app' },
  wechat_official: { group: 'chinese', icon: 'official-account' },
  aliyun_sms: { group: 'chinese', icon: 'sms' },
  pushplus: { group: 'chinese', icon: 'push' },
  serverchan: { group: 'chinese', icon: 'push' },
  wxpusher: { group: 'chinese', icon: 'push' },
  'dingtalk-work': { group: 'chinese', icon: 'app' },
  telegram: { group: 'chat', icon: 'chat' },
  slack: { group: 'chat', icon: 'chat' },
  discord: { group: 'chat', icon: 'chat' },
  ntfy: { group: 'push', icon: 'push' },
  gotify: { group: 'push', icon: 'push' },
  bark: { group: 'push', icon: 'push' },
  pushme: { group: 'push', icon: 'push' },
  email: { group: 'email_webhook', icon: 'mail' },
  webhook: { group: 'email_webhook', icon: 'webhook' },
  hosted: { group: 'hosted', icon: 'inbox' },
};

/** The i18n key of a kind's short description in the dialog's grid. */
export const channelSummaryKey = (kind: ChannelKind): string => `channelSummary.${kind}`;
