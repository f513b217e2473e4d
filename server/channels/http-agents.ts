import http from 'node:http';
import https from 'node:https';

import { HttpsProxyAgent } from 'https-proxy-agent';

/**
 * Sockets kept open per origin. At least the dispatcher's concurrency (64), so attempts to one
 * platform never queue behind each other for a socket; past that a platform is better served
 * by reusing warm connections than by opening more.
 */
export const MAX_SOCKETS_PER_ORIGIN = 128;

const keepAliveHttp = new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_ORIGIN });
const keepAliveHttps = new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_ORIGIN });
const proxyAgents = new Map<string, HttpsProxyAgent<string>>();

/**
 * One keep-alive agent per proxy. Every proxied request is tunnelled with CONNECT, so an
 * https target stays encrypted end to end (axios's own proxying would hand the proxy the
 * plain request instead).
 */
function proxyAgent(proxy: string): HttpsProxyAgent<string> {
  let agent = proxyAgents.get(proxy);
  if (!agent) {
    agent = new HttpsProxyAgent(proxy, { keepAlive: true, maxSockets: MAX_SOCKETS_PER_ORIGIN });
    proxyAgents.set(proxy, agent);
  }
  return agent;
}

/**
 * The agent a request to `url` goes out on: the channel's own proxy, else the environment's
 * (HTTP_PROXY / HTTPS_PROXY / ALL_PROXY, minus NO_PROXY, as axios reads them), else a direct
 * keep-alive connection.
 */
export function agentFor(url: URL, channelProxy: string | undefined): http.Agent {
  const proxy = channelProxy || environmentProxy(url, proxyEnvironment());
  if (proxy) return proxyAgent(proxy);
  return url.protocol === 'https:' ? keepAliveHttps : keepAliveHttp;
}

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443 };

/** The proxy variables, lower-case name first (proxy-from-env's order). */
type ProxyEnvironment = (name: 'http_proxy' | 'https_proxy' | 'all_proxy' | 'no_proxy') => string;

const fromProcess: ProxyEnvironment = (name) =>
  process.env[name] || process.env[name.toUpperCase()] || '';

/**
 * How long a reading of the proxy variables is used. Every read of process.env crosses into
 * C++ (four of them per request cost about 1 % of a busy Herald's CPU), and nothing in Herald
 * changes them while it runs.
 */
const PROXY_ENVIRONMENT_MS = 1000;
let snapshot: { at: number; read: ProxyEnvironment } | null = null;

function proxyEnvironment(): ProxyEnvironment {
  const now = Date.now();
  if (!snapshot || now - snapshot.at >= PROXY_ENVIRONMENT_MS) {
    const values = new Map(
      (['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy'] as const).map((n) => [
        n,
        fromProcess(n),
      ]),
    );
    snapshot = { at: now, read: (name) => values.get(name) ?? '' };
  }
  return snapshot.read;
}

/** Reads the proxy variables again at the next request (tests that change them). */
export function forgetProxyEnvironment(): void {
  snapshot = null;
}

/** The proxy the environment names for `url`, by proxy-from-env's rules (axios's), or ''. */
export function environmentProxy(url: URL, env: ProxyEnvironment = fromProcess): string {
  const scheme = url.protocol.slice(0, -1);
  const host = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number(url.port) || DEFAULT_PORTS[scheme] || 0;
  const proxy =
    (scheme === 'https' ? env('https_proxy') : scheme === 'http' ? env('http_proxy') : '') ||
    env('all_proxy');
  if (!proxy || !host || bypassed(host, port, env)) return '';
  return proxy.includes('://') ? proxy : `${scheme}://${proxy}`;
}

function bypassed(host: string, port: number, env: ProxyEnvironment): boolean {
  const noProxy = env('no_proxy').toLowerCase();
  if (!noProxy) return false;
  if (noProxy === '*') return true;
  return noProxy.split(/[,\s]/).some((entry) => {
    if (!entry) return false;
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = m ? m[1]! : entry;
    if (m && Number(m[2]) !== port) return false;
    if (!/^[.*]/.test(name)) return host === name;
    return host.endsWith(name.startsWith('*') ? name.slice(1) : name);
  });
}
