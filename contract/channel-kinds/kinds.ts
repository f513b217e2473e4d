/**
 * Every channel kind Herald knows. Each has one declaration of its config in this folder
 * (CHANNEL_CONFIGS) and one adapter in server/channels; a kind missing from either is a
 * compile error.
 */
export const CHANNEL_TYPES = [
  'email',
  'dingtalk',
  'wecom',
  'wechat_official',
  'hosted',
  'webhook',
  'feishu',
  'telegram',
  'ntfy',
  'gotify',
  'bark',
  'slack',
  'discord',
  'wecom_app',
  'aliyun_sms',
  'pushme',
  'pushplus',
  'serverchan',
  'wxpusher',
  'dingtalk-work',
] as const;
export type ChannelKind = (typeof CHANNEL_TYPES)[number];

/** Whether a value names a channel kind Herald knows. */
export function isChannelKind(value: unknown): value is ChannelKind {
  return typeof value === 'string' && (CHANNEL_TYPES as readonly string[]).includes(value);
}
