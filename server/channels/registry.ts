import { CHANNEL_TYPES, isChannelKind, type ChannelKind } from '../../contract/channel-kinds/kinds';
import { createAliyunSmsAdapter } from './aliyun-sms';
import { createBarkAdapter } from './bark';
import type { AnyChannelAdapter } from './channel-adapter';
import { createDingTalkAdapter } from './dingtalk';
import { createDingTalkWorkAdapter } from './dingtalk-work';
import { createDiscordAdapter } from './discord';
import { createEmailAdapter } from './email';
import { createFeishuAdapter } from './feishu';
import { createGotifyAdapter } from './gotify';
import { createHostedAdapter } from './hosted';
import { createNtfyAdapter } from './ntfy';
import { createPushMeAdapter } from './pushme';
import { createPushPlusAdapter } from './pushplus';
import { createServerChanAdapter } from './serverchan';
import { createSlackAdapter } from './slack';
import { createTelegramAdapter } from './telegram';
import { createWeChatOfficialAdapter } from './wechat-official';
import { createWebhookAdapter } from './webhook';
import { createWeComAdapter } from './wecom';
import { createWeComAppAdapter } from './wecom-app';
import { createWxPusherAdapter } from './wxpusher';

/**
 * Every channel kind Herald knows, as the contract declares their configs
 * (contract/channel-kinds). A kind without an adapter in `createChannelRegistry` is a compile
 * error, and the reverse too.
 */
export { CHANNEL_TYPES };
export type ChannelType = ChannelKind;

export type ChannelRegistry = { readonly [K in ChannelType]: AnyChannelAdapter };

/** Builds one adapter of each kind; adapters may keep per-server state (token caches). */
export function createChannelRegistry(): ChannelRegistry {
  const registry = {
    email: createEmailAdapter(),
    dingtalk: createDingTalkAdapter(),
    wecom: createWeComAdapter(),
    wechat_official: createWeChatOfficialAdapter(),
    hosted: createHostedAdapter(),
    webhook: createWebhookAdapter(),
    feishu: createFeishuAdapter(),
    telegram: createTelegramAdapter(),
    ntfy: createNtfyAdapter(),
    gotify: createGotifyAdapter(),
    bark: createBarkAdapter(),
    slack: createSlackAdapter(),
    discord: createDiscordAdapter(),
    wecom_app: createWeComAppAdapter(),
    aliyun_sms: createAliyunSmsAdapter(),
    pushme: createPushMeAdapter(),
    pushplus: createPushPlusAdapter(),
    serverchan: createServerChanAdapter(),
    wxpusher: createWxPusherAdapter(),
    'dingtalk-work': createDingTalkWorkAdapter(),
  } satisfies Record<ChannelType, AnyChannelAdapter>;
  assertRegistry(registry);
  return registry;
}

/** Fails fast at start-up on a registry whose keys and adapter types disagree. */
export function assertRegistry(registry: Record<string, { type: string }>): void {
  const keys = Object.keys(registry);
  const seen = new Set<string>();
  for (const key of keys) {
    const adapter = registry[key];
    if (!adapter) throw new Error(`channel registry: no adapter for "${key}"`);
    if (adapter.type !== key)
      throw new Error(`channel registry: "${key}" holds the adapter of "${adapter.type}"`);
    if (seen.has(adapter.type))
      throw new Error(`channel registry: duplicate adapter "${adapter.type}"`);
    seen.add(adapter.type);
  }
  for (const type of CHANNEL_TYPES) {
    if (!seen.has(type)) throw new Error(`channel registry: missing adapter for "${type}"`);
  }
}

export const isChannelType = isChannelKind;

export function adapterFor(registry: ChannelRegistry, type: string): AnyChannelAdapter | undefined {
  return isChannelType(type) ? registry[type] : undefined;
}
