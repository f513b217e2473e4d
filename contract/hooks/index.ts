import { z } from 'zod';

import { named } from '../common';
import { route } from '../route';
import { v2AnswerSchema } from '../send/answers';
import { v2RequestSchema } from '../send/requests';

/*
 * Inbound hooks (issue 24, part 2; docs/hooks.md): a tool posts its own JSON (an Alertmanager
 * or Grafana notification, a GitHub event, an Uptime Kuma heartbeat, any JSON) and a preset
 * turns it into a V2 send of the template the token opens.
 */

/** Where the hooks live: POST /api/hooks/{preset}/{token} and POST /api/hooks/{preset}. */
export const HOOKS_BASE = '/api/hooks';

/** The presets, one per sender; each fills its placeholders and the title (docs/hooks.md). */
export const HOOK_PRESETS = [
  'alertmanager',
  'grafana',
  'github',
  'uptime-kuma',
  'generic',
] as const;
export const hookPresetSchema = named('HookPreset', z.enum(HOOK_PRESETS));
export type HookPresetName = z.infer<typeof hookPresetSchema>;

/** Whether a path segment names a preset (an unknown one answers 404). */
export function isHookPreset(name: string): name is HookPresetName {
  return (HOOK_PRESETS as readonly string[]).includes(name);
}

/** An empty query value (`?priority=`) counts as not given, as on the console's routes. */
const given = (value: unknown) => (value === '' ? undefined : value);

/** A query string holds text: "600" is the number 600, anything else stays text and is refused. */
const numeric = (value: unknown) =>
  typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : given(value);

const { priority, dedupKey, dedupWindow, digestKey } = v2RequestSchema.shape;

/**
 * The query a hook takes: V2's own `priority`, `dedupKey` and `dedupWindow`, checked by V2's
 * schema, so a refusal reads as V2's does (`dedupWindow: must be at least 1 second`).
 */
export const hookQuerySchema = z.object({
  /** 1 (min) to 5 (max) or min, low, default, high, max, urgent. */
  priority: z.preprocess(given, priority),
  /** Overrides the preset's own key (Alertmanager: its groupKey and status). */
  dedupKey: z.preprocess(given, dedupKey),
  /** Seconds, 1 to 86,400; 300 when left out. */
  dedupWindow: z.preprocess(numeric, dedupWindow),
  /** The digest a collected send joins (issue 46 §2); left out: the template's own. */
  digestKey: z.preprocess(given, digestKey),
});
export type HookQuery = z.infer<typeof hookQuerySchema>;

/** What a sender may sign with (docs/hooks.md, "Signatures"); unsigned, the token authorises. */
export const hookHeaders = z.object({
  /** GitHub's event name (push, pull_request, ping, …): the github preset reads it. */
  'X-GitHub-Event': z.string().optional(),
  /** `sha256=` and the hex HMAC-SHA256 of the raw body with the template's hook secret. */
  'X-Hub-Signature-256': z.string().optional(),
  /** Standard Webhooks: the message id, signed with the timestamp and body. */
  'webhook-id': z.string().optional(),
  /** Standard Webhooks: Unix seconds; refused when more than 5 minutes from Herald's clock. */
  'webhook-timestamp': z.string().optional(),
  /** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, space-separated. */
  'webhook-signature': z.string().optional(),
});

/** Whatever the sender posts: a JSON object (the generic preset also takes an array). */
export const hookPayloadSchema = named(
  'HookPayload',
  z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]),
);

const refusals = {
  400: 'The body is not JSON (or not an object), a query parameter is invalid, or V2 refuses the send (token解析失败, 模板不存在, 模板已禁用, …)',
  401: 'The signature is missing or wrong (the template has a hook secret), or the Bearer form has no token',
  403: 'A cross-site browser request',
  404: 'No such preset',
  413: 'The body is larger than 1 MiB',
  421: 'A Host Herald does not answer to',
  429: 'The per-template rate limit',
  503: 'The database is unavailable; nothing was stored (with Retry-After)',
};

/**
 * The two forms of a hook. Answers are V2's envelope (`data: {token, count}`), with the real
 * HTTP status whatever `sendApi.httpStatus` says, since senders show it in their delivery logs.
 */
export const hookRoutes = {
  withToken: route({
    method: 'post',
    path: `${HOOKS_BASE}/{preset}/{token}`,
    summary:
      'Inbound hook: a sender posts its own JSON; the preset turns it into a V2 send of the template the token opens',
    public: true,
    params: z.object({ preset: hookPresetSchema, token: z.string() }),
    headers: hookHeaders,
    query: hookQuerySchema,
    body: hookPayloadSchema,
    response: v2AnswerSchema,
    refusals,
  }),
  bearer: route({
    method: 'post',
    path: `${HOOKS_BASE}/{preset}`,
    summary:
      'Inbound hook with the template token in `Authorization: Bearer <token>`, for senders that cannot keep secrets out of URLs',
    public: true,
    params: z.object({ preset: hookPresetSchema }),
    headers: hookHeaders.extend({
      /** `Bearer <template token>`. */
      Authorization: z.string(),
    }),
    query: hookQuerySchema,
    body: hookPayloadSchema,
    response: v2AnswerSchema,
    refusals,
  }),
};
