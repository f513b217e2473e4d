import type { z } from 'zod';

import {
  DINGTALK_USER_ID,
  DINGTALK_WORK_DEFAULT_BASE_URL,
  dingTalkWorkConfig,
} from '../../contract/channel-kinds/dingtalk-work';
import { plainTextOf } from '../domain/plain-text';
import { AccessTokenCache, tokenFromReply, type FetchedToken } from './access-token-cache';
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { joinUrl } from './channel-fields';
import { DeliveryError } from './delivery-error';
import { errcodeOf, throwOnErrcode, type ErrcodeReply, type ErrcodeRules } from './errcode';
import { httpRequest, replyOf, type HttpOptions } from './http-client';

export { DINGTALK_WORK_DEFAULT_BASE_URL };

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const dingTalkWorkConfigSchema = dingTalkWorkConfig.schema;
export type DingTalkWorkConfig = z.infer<typeof dingTalkWorkConfigSchema>;

/** Send errcodes that mean "this access_token is no good": refresh once and retry once. */
export const DINGTALK_WORK_TOKEN_REJECTED = new Set([40014, 42001]);

/** DingTalk's flow-control refusal of the same content to the same user within a day. */
export const DINGTALK_WORK_SAME_CONTENT = 143106;

export const DINGTALK_WORK_TOKEN_ERRCODES: ErrcodeRules = {
  transient: [-1],
  hints: {},
};

const ONCE_A_DAY =
  'DingTalk delivers the same content to a user only once a day: this notice already reached them today; change the content or send tomorrow';

/**
 * Work-notice errcodes (getsendresult's table, open.dingtalk.com "获取工作通知消息的发送结果"):
 * 143103/143104 are per-minute limits ("try again later"); 143105 is the 500-a-day cap per
 * user and 143106 the once-a-day rule for the same content, neither of which a retry today
 * can pass.
 */
export const DINGTALK_WORK_SEND_ERRCODES: ErrcodeRules = {
  // Token codes are transient here: they only reach this point after one refresh and retry.
  transient: [-1, 143103, 143104, 143203, 143204, ...DINGTALK_WORK_TOKEN_REJECTED],
  hints: {
    88: 'see sub_code and sub_msg: usually a permission the app lacks (开发者后台 → 权限管理)',
    143103: 'too many work notices from this app this minute',
    143104: 'too many work notices from the org this minute',
    143105: 'DingTalk lets one app send a user at most 500 work notices a day',
    143205: 'DingTalk lets one app send a user at most 500 work notices a day',
    [DINGTALK_WORK_SAME_CONTENT]: ONCE_A_DAY,
    143206: ONCE_A_DAY,
    1430000: 'no recipient',
    1430002: 'the content holds words DingTalk forbids',
  },
};

interface DingTalkWorkAccount {
  baseUrl: string;
  appKey: string;
  appSecret: string;
  options: HttpOptions;
}

async function fetchDingTalkWorkToken(account: DingTalkWorkAccount): Promise<FetchedToken> {
  const url = new URL(joinUrl(account.baseUrl, 'gettoken'));
  url.searchParams.set('appkey', account.appKey);
  url.searchParams.set('appsecret', account.appSecret);
  const res = await httpRequest({ method: 'GET', url: url.toString(), options: account.options });
  try {
    const body = throwOnErrcode(res, 'DingTalk token endpoint', DINGTALK_WORK_TOKEN_ERRCODES);
    return tokenFromReply(body, res, 'DingTalk token endpoint');
  } catch (err) {
    if (!(err instanceof DeliveryError) || err.retryable) throw err;
    throw DeliveryError.permanent(
      `${err.message} (check appKey and appSecret: 开发者后台 → the app → 凭证与基础信息)`,
      { reply: err.reply },
    );
  }
}

/** One token per (baseUrl, appKey, appSecret), i.e. per app, shared by all its channels. */
export class DingTalkWorkTokenCache extends AccessTokenCache<DingTalkWorkAccount> {
  constructor() {
    super((a) => [a.baseUrl, a.appKey, a.appSecret], fetchDingTalkWorkToken);
  }
}

/** Returns an error text unless `recipient` is a DingTalk userid, or null. */
export function validateDingTalkWorkRecipient(recipient: string): string | null {
  return DINGTALK_USER_ID.test(recipient.trim())
    ? null
    : `"${recipient}" is not a DingTalk userid (letters, digits, _ and -; at most 64)`;
}

export interface DingTalkWorkTarget {
  userid_list?: string;
  dept_id_list?: string;
  to_all_user?: boolean;
}

/** Who one notice goes to: the dynamic recipient alone, else the channel's users, departments or everyone. */
export function dingTalkWorkTarget(
  config: Pick<DingTalkWorkConfig, 'userIds' | 'deptIds' | 'toAllUser'>,
  recipient: string | null,
): DingTalkWorkTarget {
  const one = recipient?.trim();
  if (one) return { userid_list: one };
  if (config.toAllUser) return { to_all_user: true };
  const target: DingTalkWorkTarget = {};
  if (config.userIds?.length) target.userid_list = config.userIds.join(',');
  if (config.deptIds?.length) target.dept_id_list = config.deptIds.join(',');
  if (!target.userid_list && !target.dept_id_list) {
    throw DeliveryError.permanent(
      'no DingTalk recipient: set the channel’s userIds, deptIds or toAllUser, or use a dynamic-recipient instance',
    );
  }
  return target;
}

export type DingTalkWorkMsg =
  | { msgtype: 'text'; text: { content: string } }
  | { msgtype: 'markdown'; markdown: { title: string; text: string } };

/**
 * The notice. A markdown notice needs a title (the conversation list shows it): the send's
 * title, else the start of the content; it is repeated as a heading. Text leads with the title.
 * The send's url follows the content.
 */
export function buildDingTalkWorkMsg(
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url'>,
): DingTalkWorkMsg {
  const title = message.title.replace(/\s+/g, ' ').trim();
  if (message.contentType === 'markdown') {
    const text = [
      title ? `### ${title}` : '',
      message.content,
      message.url ? `[${message.url}](${message.url})` : '',
    ]
      .filter(Boolean)
      .join('\n\n');
    const preview =
      title ||
      Array.from(plainTextOf(message.content, 'markdown')).slice(0, 64).join('') ||
      'Herald';
    return { msgtype: 'markdown', markdown: { title: preview, text } };
  }
  const content = [title, message.content, message.url ?? ''].filter(Boolean).join('\n');
  return { msgtype: 'text', text: { content } };
}

/** The accepted notice's receipt: DingTalk's asynchronous task id first, then the answer. */
export function dingTalkWorkReceipt(reply: ErrcodeReply, raw: string): string {
  const taskId = reply.task_id;
  if (typeof taskId !== 'number' && !(typeof taskId === 'string' && taskId)) {
    throw DeliveryError.permanent('DingTalk accepted the notice but answered without task_id', {
      reply: raw,
    });
  }
  return `task_id ${String(taskId)}; ${raw}`;
}

/** A user DingTalk's flow control filtered out of a notice, and why (forbidden_list's code). */
export interface ForbiddenUser {
  userid: string;
  code: string;
}

/** Reads getsendresult's `send_result`: the users filtered out, with their codes. */
export function forbiddenOf(reply: ErrcodeReply): ForbiddenUser[] {
  const result = reply.send_result as Record<string, unknown> | undefined;
  if (!result || typeof result !== 'object') return [];
  const listed = Array.isArray(result.forbidden_list) ? result.forbidden_list : [];
  const found: ForbiddenUser[] = listed
    .filter((f): f is Record<string, unknown> => !!f && typeof f === 'object')
    .filter((f) => typeof f.userid === 'string')
    .map((f) => ({ userid: String(f.userid), code: String(f.code ?? '') }));
  const ids = Array.isArray(result.forbidden_user_id_list) ? result.forbidden_user_id_list : [];
  for (const id of ids) {
    if (typeof id === 'string' && !found.some((f) => f.userid === id))
      found.push({ userid: id, code: '' });
  }
  return found;
}

function forbiddenWords(code: string): string {
  if (code === String(DINGTALK_WORK_SAME_CONTENT) || code === '143206')
    return 'same content already sent today (DingTalk sends it once a day)';
  if (code === '143105' || code === '143205') return 'over 500 notices from this app today';
  return code ? `flow control ${code}` : 'flow control';
}

/**
 * The refusals DingTalk reports for an accepted notice. asyncsend_v2 accepts a notice even when
 * flow control (the same content to a user twice in a day, 500 a day per user) then filters
 * users out; getsendresult lists them. It is asked once, right away: a result DingTalk has not
 * worked out yet reads as no refusal. A failed query never fails a notice that was accepted.
 */
async function forbiddenUsers(
  config: DingTalkWorkConfig,
  token: string,
  taskId: unknown,
): Promise<ForbiddenUser[] | string> {
  try {
    const res = await httpRequest({
      url: `${joinUrl(config.baseUrl, 'topapi/message/corpconversation/getsendresult')}?access_token=${encodeURIComponent(token)}`,
      headers: { 'Content-Type': 'application/json;charset=utf-8' },
      body: JSON.stringify({ agent_id: config.agentId, task_id: Number(taskId) }),
      options: config,
    });
    return forbiddenOf(throwOnErrcode(res, 'DingTalk getsendresult', { transient: [] }));
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * The delivery's outcome given the refusals: a notice to named users all of whom DingTalk
 * refused did not reach anyone and fails, worded as the refusal it is; otherwise it is sent and
 * the receipt names whoever was filtered out.
 */
export function judgeForbidden(
  target: DingTalkWorkTarget,
  refused: ForbiddenUser[] | string,
  receipt: string,
): string {
  if (typeof refused === 'string') return `${receipt} (send result not checked: ${refused})`;
  if (refused.length === 0) return receipt;
  const words = refused.map((f) => `${f.userid}: ${forbiddenWords(f.code)}`).join('; ');
  const named = target.userid_list?.split(',') ?? [];
  const everyoneRefused =
    !target.dept_id_list &&
    !target.to_all_user &&
    named.length > 0 &&
    named.every((u) => refused.some((f) => f.userid === u));
  if (everyoneRefused) {
    const sameContent = refused.every((f) => forbiddenWords(f.code).startsWith('same content'));
    throw DeliveryError.permanent(
      sameContent
        ? `DingTalk refused the notice: ${ONCE_A_DAY} (${words})`
        : `DingTalk refused the notice for every recipient (${words})`,
      { reply: receipt },
    );
  }
  return `not delivered to ${words}; ${receipt}`;
}

/**
 * DingTalk work notice (工作通知) from an org's internal app, through the legacy oapi
 * (gettoken + asyncsend_v2). The access_token is cached in this factory's closure for its
 * lifetime, so every channel of one app shares it.
 */
export function createDingTalkWorkAdapter() {
  const tokens = new DingTalkWorkTokenCache();

  return defineAdapter({
    type: 'dingtalk-work',
    label: 'DingTalk work notice',
    ...configOf(dingTalkWorkConfig),
    contentTypes: ['text', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: true,
    fixedRecipient: 'none',
    validateRecipient: validateDingTalkWorkRecipient,
    async send(config, given, services) {
      // Files reach the notice as links at the end of the content.
      const message = withAttachmentLinks(given, { images: false });
      const target = dingTalkWorkTarget(config, message.recipient);
      const body = JSON.stringify({
        agent_id: config.agentId,
        ...target,
        msg: buildDingTalkWorkMsg(message),
      });
      const account: DingTalkWorkAccount = {
        baseUrl: config.baseUrl,
        appKey: config.appKey,
        appSecret: config.appSecret,
        options: config,
      };
      const post = (token: string) =>
        httpRequest({
          url: `${joinUrl(config.baseUrl, 'topapi/message/corpconversation/asyncsend_v2')}?access_token=${encodeURIComponent(token)}`,
          headers: { 'Content-Type': 'application/json;charset=utf-8' },
          body,
          options: config,
        });

      const token = await tokens.get(account, services.clock.now());
      let res = await post(token);
      const code = errcodeOf(res);
      if (code !== undefined && DINGTALK_WORK_TOKEN_REJECTED.has(code)) {
        res = await post(await tokens.get(account, services.clock.now(), token));
      }
      const reply = throwOnErrcode(res, 'DingTalk', DINGTALK_WORK_SEND_ERRCODES);
      const receipt = dingTalkWorkReceipt(reply, replyOf(res));
      const refused = await forbiddenUsers(config, token, reply.task_id);
      return { reply: judgeForbidden(target, refused, receipt) };
    },
  });
}
