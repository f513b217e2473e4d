import type { Component } from 'vue';

import AliyunSmsForm from './AliyunSmsForm.vue';
import BarkForm from './BarkForm.vue';
import DingTalkForm from './DingTalkForm.vue';
import DiscordForm from './DiscordForm.vue';
import EmailForm from './EmailForm.vue';
import FeishuForm from './FeishuForm.vue';
import GenericJsonForm from './GenericJsonForm.vue';
import GotifyForm from './GotifyForm.vue';
import HostedForm from './HostedForm.vue';
import NtfyForm from './NtfyForm.vue';
import PushMeForm from './PushMeForm.vue';
import SlackForm from './SlackForm.vue';
import TelegramForm from './TelegramForm.vue';
import WebhookForm from './WebhookForm.vue';
import WechatOfficialForm from './WechatOfficialForm.vue';
import WecomAppForm from './WecomAppForm.vue';
import WecomForm from './WecomForm.vue';

/**
 * One form per channel kind, keyed by the same type names as the server's channel registry
 * (server/channels/registry.ts). A kind the server knows but this map lacks still gets a
 * working form: the JSON editor.
 */
export const channelForms: Readonly<Record<string, Component>> = {
  email: EmailForm,
  dingtalk: DingTalkForm,
  wecom: WecomForm,
  wechat_official: WechatOfficialForm,
  webhook: WebhookForm,
  hosted: HostedForm,
  feishu: FeishuForm,
  telegram: TelegramForm,
  ntfy: NtfyForm,
  gotify: GotifyForm,
  bark: BarkForm,
  slack: SlackForm,
  discord: DiscordForm,
  wecom_app: WecomAppForm,
  aliyun_sms: AliyunSmsForm,
  pushme: PushMeForm,
};

/** The form for a kind, or the generic JSON editor for a kind without its own. */
export function formFor(type: string): Component {
  return channelForms[type] ?? GenericJsonForm;
}

/** Whether a kind has a dedicated form (otherwise it falls back to the JSON editor). */
export function hasDedicatedForm(type: string): boolean {
  return Object.hasOwn(channelForms, type);
}

export { GenericJsonForm };
