import { createHash } from 'node:crypto';

import { DeliveryError } from './delivery-error';
import { throwOnErrcode, type ErrcodeRules } from './errcode';
import { httpRequest, replyOf, type HttpOptions } from './http-client';

/** Refresh this long before the platform's expiry, as WeChat asks (it keeps old tokens 5 min). */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;
/**
 * A refused token request (wrong appSecret, IP not whitelisted) is remembered this long, so a
 * burst of messages to a misconfigured account does not spend the test account's 200 daily
 * token calls in one go. A config change uses another cache entry and is tried at once.
 */
export const TOKEN_FAILURE_MEMORY_MS = 60_000;

/** Which account a token belongs to. */
export interface TokenAccount {
  apiBaseUrl: string;
  appId: string;
  appSecret: string;
  options?: HttpOptions;
}

export const WECHAT_TOKEN_ERRCODES: ErrcodeRules = {
  transient: [-1, 45009],
  hints: {
    40001: 'appSecret is wrong',
    40002: 'grant_type is wrong',
    40013: 'appId is wrong',
    40125: 'appSecret is wrong',
    40164: 'this machine’s IP address is not in the account’s API IP whitelist',
    45009: 'the daily access_token quota is used up (test accounts get 200 a day)',
  },
};

interface CachedToken {
  token: string;
  /** When to fetch a fresh one (platform expiry minus the margin). */
  refreshAt: number;
}

/**
 * One access_token per account, shared by every delivery and every channel of that account:
 * fetched once, refreshed early, and fetched by a single request however many deliveries ask
 * at the same time. Token calls are rationed (200 a day on a test account), so never per message.
 */
export class WeChatTokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly inflight = new Map<string, Promise<string>>();
  private readonly failures = new Map<string, { error: DeliveryError; until: number }>();

  /**
   * A usable token. Pass `rejected` with the token the platform just refused (40001, 42001…):
   * that one is dropped and a fresh one fetched, unless another delivery already replaced it.
   */
  async get(account: TokenAccount, nowMs: number, rejected?: string): Promise<string> {
    const key = accountKey(account);
    const cached = this.tokens.get(key);
    if (cached && cached.token === rejected) this.tokens.delete(key);
    else if (cached && nowMs < cached.refreshAt) return cached.token;

    const pending = this.inflight.get(key);
    if (pending) return pending;

    const failure = this.failures.get(key);
    if (failure && nowMs < failure.until) throw failure.error;
    this.failures.delete(key);

    const fetching = fetchToken(account)
      .then(({ token, expiresInMs }) => {
        const margin = Math.min(TOKEN_REFRESH_MARGIN_MS, expiresInMs / 2);
        this.tokens.set(key, { token, refreshAt: nowMs + expiresInMs - margin });
        return token;
      })
      .catch((err: unknown) => {
        if (err instanceof DeliveryError && !err.retryable) {
          this.failures.set(key, { error: err, until: nowMs + TOKEN_FAILURE_MEMORY_MS });
        }
        throw err;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, fetching);
    return fetching;
  }
}

/** The secret stays out of the map keys; only its digest identifies the account. */
function accountKey(account: TokenAccount): string {
  return createHash('sha256')
    .update(`${account.apiBaseUrl}\n${account.appId}\n${account.appSecret}`)
    .digest('hex');
}

async function fetchToken(account: TokenAccount): Promise<{ token: string; expiresInMs: number }> {
  const url = new URL(`${account.apiBaseUrl}/cgi-bin/token`);
  url.searchParams.set('grant_type', 'client_credential');
  url.searchParams.set('appid', account.appId);
  url.searchParams.set('secret', account.appSecret);
  const res = await httpRequest({ method: 'GET', url: url.toString(), options: account.options });
  const body = throwOnErrcode(res, 'WeChat token endpoint', {
    ...WECHAT_TOKEN_ERRCODES,
    missingMeansOk: true,
  });
  const token = body.access_token;
  const expiresIn = Number(body.expires_in);
  if (typeof token !== 'string' || !token || !Number.isFinite(expiresIn) || expiresIn <= 0) {
    throw DeliveryError.permanent('WeChat token endpoint answered without an access_token', {
      reply: replyOf(res),
    });
  }
  return { token, expiresInMs: expiresIn * 1000 };
}
