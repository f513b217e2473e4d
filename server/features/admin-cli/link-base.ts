import { settingsFields } from '../../../contract/console/settings';
import { DEFAULT_HOST, DEFAULT_PORT } from '../../config/herald-config';
import { AdminRefused } from './admin-refused';

/** Where the base of a printed link came from, so the output can say how to change it. */
export type LinkBaseOrigin = 'option' | 'setting' | 'listen address';

export interface LinkBase {
  url: string;
  origin: LinkBaseOrigin;
}

/**
 * The address a headless Herald started with the same environment listens on, as the server
 * prints it (server/index.ts): HERALD_HOST and HERALD_PORT, else the defaults; 0.0.0.0 is
 * reached at 127.0.0.1, an IPv6 address in brackets. This process cannot see flags a running
 * Herald was started with, hence --url.
 */
export function listenBaseUrl(env: NodeJS.ProcessEnv): string {
  const host = env.HERALD_HOST || DEFAULT_HOST;
  const portText = env.HERALD_PORT || String(DEFAULT_PORT);
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new AdminRefused(
      `HERALD_PORT must be a port from 1 to 65535, not "${portText}"; or give the link's address with --url`,
    );
  }
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return `http://${urlHost}:${port}`;
}

/** --url, checked as the publicBaseUrl setting is (absolute http(s), no query), `/` dropped. */
export function parseUrlOption(value: string): string {
  const parsed = settingsFields.publicBaseUrl.safeParse(value);
  if (!parsed.success || parsed.data === '') {
    throw new Error(
      `--url must be an absolute http:// or https:// address without query or fragment (e.g. https://herald.example.com), not "${value}"`,
    );
  }
  return parsed.data;
}

/**
 * The base of the link, as the console's invite links are built (share-links.ts
 * `publicBaseUrl`): --url, else the install's publicBaseUrl setting, else the listen address.
 */
export function linkBase(
  option: string | undefined,
  publicBaseUrl: string,
  env: NodeJS.ProcessEnv,
): LinkBase {
  if (option !== undefined) return { url: option, origin: 'option' };
  if (publicBaseUrl) return { url: publicBaseUrl, origin: 'setting' };
  return { url: listenBaseUrl(env), origin: 'listen address' };
}
