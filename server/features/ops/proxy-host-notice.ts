import type { Request, RequestHandler } from 'express';

import type { DashboardNotice } from '../../../contract';
import { createLogger, type Logger } from '../../lib/logger';
import type { HeraldParts } from '../../parts';

export interface ProxyHostNoticeDeps extends Pick<HeraldParts, 'listenUrl' | 'trustProxy'> {
  settings: { get(): { publicBaseUrl: string } };
  log?: Logger;
}

/** The headers a reverse proxy adds: a request with none of them came to Herald directly. */
const FORWARDED = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'] as const;

/** Express's compiled 'trust proxy' (HERALD_TRUST_PROXY): whether an address is a trusted hop. */
type TrustFn = (address: string, hop: number) => boolean;

/**
 * Behind a reverse proxy without `publicBaseUrl`, share links (a send's hostMessageUrl, the
 * reader's) and invite links start with Herald's own address (http://127.0.0.1:8765), which
 * nobody outside can open. (The console's hook URLs follow the browser's address instead.) Herald cannot know its public name until a proxy tells it: the first
 * request a trusted proxy passes on under another name is logged once and kept for the
 * dashboard, which shows it until the setting is set.
 */
export class ProxyHostNotice {
  private seen: { host: string; suggested: string } | null = null;
  private readonly log: Logger;

  constructor(private readonly deps: ProxyHostNoticeDeps) {
    this.log = deps.log ?? createLogger('server');
  }

  /** The watch, for every request; null when no proxy is trusted (nothing to watch for). */
  middleware(): RequestHandler | null {
    if (this.deps.trustProxy === false) return null;
    return (req, _res, next) => {
      // Once seen, nothing more to learn: each request after costs one comparison.
      if (this.seen === null) this.watch(req);
      next();
    };
  }

  private watch(req: Request) {
    if (this.deps.settings.get().publicBaseUrl) return;
    if (!FORWARDED.some((h) => req.headers[h] !== undefined)) return;
    const trust = req.app.get('trust proxy fn') as TrustFn | undefined;
    const from = req.socket.remoteAddress;
    if (!trust || from === undefined || !trust(from, 0)) return;
    // Express reads X-Forwarded-Host from a trusted hop, else Host.
    const host = printable(req.host ?? '').toLowerCase();
    if (host === '' || host === ownHost(this.deps.listenUrl())) return;
    const suggested = `${req.protocol}://${host}`;
    this.seen = { host, suggested };
    this.log.warn(
      `requests come through a reverse proxy as "${host}", but publicBaseUrl is not set: share links ` +
        `(hostMessageUrl) and invite links point at ${this.deps.listenUrl()}. Set the ` +
        `public address (publicBaseUrl) to ${suggested} in the console: Settings → Send API answers ` +
        'and share links → Public address',
    );
  }

  /** The dashboard's notices: the proxy's name while publicBaseUrl is still empty. */
  notices(): DashboardNotice[] {
    if (this.seen === null || this.deps.settings.get().publicBaseUrl) return [];
    return [
      {
        code: 'publicBaseUrlUnset',
        host: this.seen.host,
        linksStartWith: this.deps.listenUrl(),
        suggested: this.seen.suggested,
        setting: 'publicBaseUrl',
      },
    ];
  }
}

/** host[:port] of Herald's own address, as a Host header spells it. */
function ownHost(listenUrl: string): string | null {
  try {
    return new URL(listenUrl).host.toLowerCase();
  } catch {
    return null;
  }
}

/** A header value fit for one log line and the dashboard: no control characters, bounded. */
function printable(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  return value.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255);
}
