import { DeliveryError } from './delivery-error';
import { assertHttpOk, replyOf, type HttpResponse } from './http-client';

/**
 * How one platform's `{errcode, errmsg}` replies are classified. DingTalk, WeCom and WeChat all
 * answer HTTP 200 with a non-zero errcode on failure, and append request ids and hints to
 * errmsg, so only the numeric code is ever matched.
 */
export interface ErrcodeRules {
  /** Codes worth retrying (busy, rate limits); every other non-zero code is permanent. */
  transient: readonly number[];
  /** A wait the platform imposes after a code, e.g. DingTalk's 10-minute throttle on 130101. */
  retryAfterMs?: Readonly<Record<number, number>>;
  /** What a code means in words a user can act on; errmsg alone is often cryptic. */
  hints?: Readonly<Record<number, string>>;
  /** A reply without errcode counts as success (WeChat's token endpoint answers that way). */
  missingMeansOk?: boolean;
}

/** A JSON object reply; the caller reads its own success fields from it. */
export type ErrcodeReply = Record<string, unknown>;

/** The numeric errcode of a reply, or undefined when the body has none (or is not JSON). */
export function errcodeOf(res: HttpResponse): number | undefined {
  const body = res.json;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const code = (body as ErrcodeReply).errcode;
  if (typeof code === 'number' && Number.isFinite(code)) return code;
  // Some gateways quote numbers; accept a numeric string rather than call it garbage.
  if (typeof code === 'string' && /^-?\d+$/.test(code.trim())) return Number(code);
  return undefined;
}

/**
 * Throws a tagged DeliveryError unless the reply is HTTP 2xx with errcode 0 (or, with
 * `missingMeansOk`, no errcode at all). HTTP 5xx/429 are transient and other statuses
 * permanent, as for every HTTP platform. Returns the parsed body on success.
 */
export function throwOnErrcode(
  res: HttpResponse,
  platform: string,
  rules: ErrcodeRules,
): ErrcodeReply {
  assertHttpOk(res, platform);
  const reply = replyOf(res);
  const body = res.json;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    // A 200 that is not JSON is not the platform talking (a captive portal, a wrong URL).
    throw DeliveryError.permanent(`${platform} answered with something that is not its API`, {
      reply,
    });
  }
  const code = errcodeOf(res);
  if (code === 0) return body as ErrcodeReply;
  if (code === undefined) {
    if (rules.missingMeansOk) return body as ErrcodeReply;
    throw DeliveryError.permanent(`${platform} answered without an errcode`, { reply });
  }
  const errmsg = (body as ErrcodeReply).errmsg;
  const hint = rules.hints?.[code];
  const message =
    `${platform} refused the message: errcode ${code}` +
    (typeof errmsg === 'string' && errmsg ? ` ${errmsg}` : '') +
    (hint ? ` (${hint})` : '');
  if (rules.transient.includes(code)) {
    throw DeliveryError.transient(message, { reply, retryAfterMs: rules.retryAfterMs?.[code] });
  }
  throw DeliveryError.permanent(message, { reply });
}
