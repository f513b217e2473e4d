import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { dashboardNoticeSchema } from '../../../contract';
import { rawRequest } from '../../helpers/exact-request';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { keepLogLines } from '../../helpers/log-lines';

/* eslint-disable @typescript-eslint/no-explicit-any -- console answers are loose JSON */

/**
 * Behind a reverse proxy without publicBaseUrl, the links Herald hands out point at its own
 * address. The proxy here is this test, on loopback, sending what nginx's documented
 * configuration sends (docs/running-for-a-team.md): Host passed through, X-Forwarded-Proto and
 * X-Forwarded-For added.
 */
const WARNING = /publicBaseUrl is not set/;

describe('a trusted reverse proxy without publicBaseUrl', () => {
  const lines: string[] = [];
  let log: ReturnType<typeof keepLogLines>;
  const heralds: TestHerald[] = [];

  beforeAll(() => {
    log = keepLogLines('warn', lines);
  });
  afterAll(async () => {
    log.restore();
    for (const h of heralds) await h.close(true);
  });
  afterEach(() => {
    lines.length = 0;
  });

  async function herald(opts: { trustProxy?: string; allowedHosts?: string[] }) {
    const h = await startTestHerald(opts);
    heralds.push(h);
    return h;
  }

  /** A console request as the proxy passes it on, signed in as the administrator. */
  const proxied = (h: TestHerald, headers: Record<string, string>, path = '/api/console/me') =>
    rawRequest(h.server.port, {
      path,
      headers: { Cookie: h.console.cookie!, 'X-Forwarded-For': '203.0.113.7', ...headers },
    });

  /** The dashboard's notices, as the contract reads them (strict: no field it does not name). */
  const notices = async (h: TestHerald): Promise<any[]> =>
    dashboardNoticeSchema.array().parse(await h.console.ok('GET', '/stats/notices'));

  const warnings = () => lines.filter((l) => WARNING.test(l));

  it('warns once in the log and on the dashboard, naming the host and the setting, until it is set', async () => {
    const h = await herald({ trustProxy: 'loopback', allowedHosts: ['herald.example.com'] });

    // Herald's own address, straight from loopback: nothing to say.
    expect((await rawRequest(h.server.port, { path: '/healthz' })).status).toBe(200);
    expect(await notices(h)).toEqual([]);
    expect(warnings()).toEqual([]);

    const through = await proxied(h, {
      Host: 'herald.example.com',
      'X-Forwarded-Proto': 'https',
    });
    expect(through.status).toBe(200);
    expect(await notices(h)).toEqual([
      {
        code: 'publicBaseUrlUnset',
        host: 'herald.example.com',
        linksStartWith: h.url,
        suggested: 'https://herald.example.com',
        setting: 'publicBaseUrl',
      },
    ]);
    // An invite link made now shows what the notice is about: it starts with Herald's own address.
    const invite = await h.console.ok('POST', '/users', { username: 'bob', role: 'viewer' });
    expect(JSON.stringify(invite)).toContain(`${h.url}/invite?token=`);

    // More requests through the proxy, under this name or another: still the one line.
    await proxied(h, { Host: 'herald.example.com', 'X-Forwarded-Proto': 'https' });
    await proxied(h, { Host: 'herald.example.com', 'X-Forwarded-Proto': 'http' });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain(
      `requests come through a reverse proxy as "herald.example.com", but publicBaseUrl is not set: share links (hostMessageUrl) and invite links point at ${h.url}. Set the public address (publicBaseUrl) to https://herald.example.com in the console: Settings → Send API answers and share links → Public address`,
    );

    await h.console.ok('PUT', '/settings', { publicBaseUrl: 'https://herald.example.com' });
    expect(await notices(h)).toEqual([]);
    await proxied(h, { Host: 'herald.example.com', 'X-Forwarded-Proto': 'https' });
    expect(warnings()).toHaveLength(1);
  });

  it('reads the name from X-Forwarded-Host when the proxy keeps Herald’s own Host', async () => {
    const h = await herald({ trustProxy: 'loopback' });
    await proxied(h, {
      'X-Forwarded-Host': 'herald.example.org',
      'X-Forwarded-Proto': 'https',
    });
    expect(await notices(h)).toMatchObject([
      { host: 'herald.example.org', suggested: 'https://herald.example.org' },
    ]);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatch(/as "herald\.example\.org"/);
  });

  it('says nothing when the forwarded headers come from no trusted proxy', async () => {
    for (const trustProxy of [undefined, '10.0.0.5']) {
      const h = await herald({ trustProxy, allowedHosts: ['herald.example.com'] });
      const r = await proxied(h, {
        Host: 'herald.example.com',
        'X-Forwarded-Host': 'herald.example.org',
        'X-Forwarded-Proto': 'https',
      });
      expect(r.status, String(trustProxy)).toBe(200);
      expect(await notices(h), String(trustProxy)).toEqual([]);
    }
    expect(warnings()).toEqual([]);
  });

  it('says nothing for a request from loopback that no proxy passed on', async () => {
    const h = await herald({ trustProxy: 'loopback' });
    // A browser on the machine, by another of Herald's names: no forwarded headers.
    const r = await rawRequest(h.server.port, {
      path: '/api/console/me',
      headers: { Host: `localhost:${h.server.port}`, Cookie: h.console.cookie! },
    });
    expect(r.status).toBe(200);
    expect(await notices(h)).toEqual([]);
    expect(warnings()).toEqual([]);
  });
});
