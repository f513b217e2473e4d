import { aliyunSmsConfig } from './aliyun-sms';
import { barkConfig } from './bark';
import type { AnyChannelConfigDeclaration } from './declare';
import { dingTalkConfig } from './dingtalk';
import { dingTalkWorkConfig } from './dingtalk-work';
import { discordConfig } from './discord';
import { emailConfig } from './email';
import { feishuConfig } from './feishu';
import { gotifyConfig } from './gotify';
import { hostedConfig } from './hosted';
import type { ChannelKind } from './kinds';
import { ntfyConfig } from './ntfy';
import { pushMeConfig } from './pushme';
import { pushPlusConfig } from './pushplus';
import { serverChanConfig } from './serverchan';
import { slackConfig } from './slack';
import { telegramConfig } from './telegram';
import { webhookConfig } from './webhook';
import { weChatOfficialConfig } from './wechat-official';
import { weComConfig } from './wecom';
import { weComAppConfig } from './wecom-app';
import { wxPusherConfig } from './wxpusher';

/**
 * Each channel kind's config, declared once (schema and console fields), by kind. The server's
 * adapters parse with these schemas, the console renders its forms from them (served by
 * GET /channel-types) and the contract types `config` per kind with them.
 */
export const CHANNEL_CONFIGS = {
  email: emailConfig,
  dingtalk: dingTalkConfig,
  wecom: weComConfig,
  wechat_official: weChatOfficialConfig,
  hosted: hostedConfig,
  webhook: webhookConfig,
  feishu: feishuConfig,
  telegram: telegramConfig,
  ntfy: ntfyConfig,
  gotify: gotifyConfig,
  bark: barkConfig,
  slack: slackConfig,
  discord: discordConfig,
  wecom_app: weComAppConfig,
  aliyun_sms: aliyunSmsConfig,
  pushme: pushMeConfig,
  pushplus: pushPlusConfig,
  serverchan: serverChanConfig,
  wxpusher: wxPusherConfig,
  'dingtalk-work': dingTalkWorkConfig,
} as const satisfies Record<ChannelKind, AnyChannelConfigDeclaration>;
export type ChannelConfigs = typeof CHANNEL_CONFIGS;

export * from './aliyun-sms';
export * from './bark';
export * from './config-schemas';
export * from './declare';
export * from './describe';
export * from './dingtalk';
export * from './dingtalk-work';
export * from './discord';
export * from './email';
export * from './feishu';
export * from './fields';
export * from './gotify';
export * from './hosted';
export * from './kind-groups';
export * from './kinds';
export * from './ntfy';
export * from './pushme';
export * from './pushplus';
export * from './serverchan';
export * from './slack';
export * from './telegram';
export * from './webhook';
export * from './wechat-official';
export * from './wecom';
export * from './wecom-app';
export * from './wxpusher';
