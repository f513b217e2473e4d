import { createHash } from 'node:crypto';

import { DeliveryError } from './delivery-error';
import type { ErrcodeReply } from './errcode';
import { replyOf, type HttpResponse } from './http-client';

/** Refresh this long before the platform's expiry (WeChat and WeCom both ask for early refresh). */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;
/**
 * A refused token request (wrong secret, IP not whitelisted) is remembered this long, so a
 * burst of messages to a misconfigured account does not spend its rationed token calls in one
 * go. A config change uses another cache entry and is tried at once.
 */
export const TOKEN_FAILURE_MEMORY_MS = 60_000;

/** What a platform's token endpoint handed out. */
export interface FetchedToken {
  token: string;
  expiresInMs: number;
}

interface CachedToken {
  token: string;
  /** When to fetch a fresh one (platform expiry minus the margin). */
  refreshAt: number;
}

/**
 * One access_token per account, shared by every delivery and every channel of that account:
 * fetched once, refreshed early, and fetched by a single request however many deliveries ask
 * at the same time. The platform decides what an account is (`identity`) and how a token is
 * fetched (`fetch`); the caching rules are the same for WeChat and WeCom.
 */
export class AccessTokenCache<Account> {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly inflight = new Map<string, Promise<string>>();
  private readonly failures = new Map<string, { error: DeliveryError; until: number }>();

  constructor(
    /** The parts that make two configs the same account (base URL, id, secret). */
    private readonly identity: (account: Account) => readonly string[],
    private readonly fetch: (account: Account) => Promise<FetchedToken>,
  ) {}

  /**
   * A usable token. Pass `rejected` with the token the platform just refused (40001, 42001…):
   * that one is dropped and a fresh one fetched, unless another delivery already replaced it.
   */
  async get(account: Account, nowMs: number, rejected?: string): Promise<string> {
    const key = digest(this.identity(account));
    const cached = this.tokens.get(key);
    if (cached && cached.token === rejected) this.tokens.delete(key);
    else if (cached && nowMs < cached.refreshAt) return cached.token;

    const pending = this.inflight.get(key);
    if (pending) return pending;

    const failure = this.failures.get(key);
    if (failure && nowMs < failure.until) throw failure.error;
    this.failures.delete(key);

    const fetching = this.fetch(account)
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

/** Secrets stay out of the map keys; only a digest of the identity is kept. */
function digest(parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

/** The `{access_token, expires_in}` of a token reply already checked for errcodes. */
export function tokenFromReply(
  body: ErrcodeReply,
  res: HttpResponse,
  platform: string,
): FetchedToken {
  const token = body.access_token;
  const expiresIn = Number(body.expires_in);
  if (typeof token !== 'string' || !token || !Number.isFinite(expiresIn) || expiresIn <= 0) {
    throw DeliveryError.permanent(`${platform} answered without an access_token`, {
      reply: replyOf(res),
    });
  }
  return { token, expiresInMs: expiresIn * 1000 };
}
