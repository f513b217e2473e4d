import { AccessTokenCache, tokenFromReply, type FetchedToken } from './access-token-cache';
import { throwOnErrcode, type ErrcodeRules } from './errcode';
import { httpRequest, type HttpOptions } from './http-client';

export { TOKEN_FAILURE_MEMORY_MS, TOKEN_REFRESH_MARGIN_MS } from './access-token-cache';

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

/**
 * The official account's access_token per (apiBaseUrl, appId, appSecret). Token calls are
 * rationed (200 a day on a test account), so never per message.
 */
export class WeChatTokenCache extends AccessTokenCache<TokenAccount> {
  constructor() {
    super((a) => [a.apiBaseUrl, a.appId, a.appSecret], fetchToken);
  }
}

async function fetchToken(account: TokenAccount): Promise<FetchedToken> {
  const url = new URL(`${account.apiBaseUrl}/cgi-bin/token`);
  url.searchParams.set('grant_type', 'client_credential');
  url.searchParams.set('appid', account.appId);
  url.searchParams.set('secret', account.appSecret);
  const res = await httpRequest({ method: 'GET', url: url.toString(), options: account.options });
  const body = throwOnErrcode(res, 'WeChat token endpoint', {
    ...WECHAT_TOKEN_ERRCODES,
    missingMeansOk: true,
  });
  return tokenFromReply(body, res, 'WeChat token endpoint');
}
