import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { setLogOutput } from '../../../server/lib/logger';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

describe('the access log of a running Herald', () => {
  let herald: TestHerald;
  const lines: string[] = [];
  let restore: () => void;

  beforeAll(async () => {
    herald = await startTestHerald();
    vi.stubEnv('HERALD_LOG', 'info');
    restore = setLogOutput({ write: (line) => lines.push(line) }, 'json');
  });
  afterAll(async () => {
    restore();
    vi.unstubAllEnvs();
    await herald.close(true);
  });

  it('writes one JSON line per request, without the send token, the hook token or credentials', async () => {
    const { token } = await herald.createTask(`access log ${Date.now()}`, []);
    lines.length = 0;
    const send = await fetch(`${herald.url}/api/v1/message/send?token=${token}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer auth_secret_9' },
      body: JSON.stringify({ title: 'body_secret_7', content: 'hello' }),
    });
    const hook = await fetch(`${herald.url}/api/hooks/github/${token}`, {
      method: 'POST',
      headers: { Cookie: 'herald_session=cookie_secret_5' },
      body: '{}',
    });
    await vi.waitFor(() => expect(lines.length).toBeGreaterThanOrEqual(2));

    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const access = records.filter((r) => r.module === 'access');
    expect(
      access.find((r) => r.method === 'POST' && r.path === '/api/v1/message/send?…'),
    ).toMatchObject({
      level: 'info',
      msg: 'request',
      status: send.status,
      remote: expect.stringContaining('127.0.0.1'),
      ms: expect.any(Number),
    });
    expect(access.find((r) => r.path === '/api/hooks/github/…')).toMatchObject({
      status: hook.status,
    });
    const all = lines.join('\n');
    for (const secret of [token, 'auth_secret_9', 'cookie_secret_5', 'body_secret_7'])
      expect(all).not.toContain(secret);
  });

  it('writes a HEALTHCHECK that succeeded only at debug, so probes do not bury the requests', async () => {
    lines.length = 0;
    expect((await fetch(`${herald.url}/healthz`)).status).toBe(200);
    const marker = await fetch(`${herald.url}/api/console/status`);
    await vi.waitFor(() => expect(lines.some((l) => l.includes('/api/console/status'))).toBe(true));
    const access = () =>
      lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((r) => r.module === 'access');
    expect(access().find((r) => r.path === '/api/console/status')).toMatchObject({
      status: marker.status,
    });
    expect(access().some((r) => r.path === '/healthz')).toBe(false);

    vi.stubEnv('HERALD_LOG', 'debug');
    lines.length = 0;
    await fetch(`${herald.url}/healthz`);
    await vi.waitFor(() =>
      expect(access().find((r) => r.path === '/healthz')).toMatchObject({
        level: 'debug',
        status: 200,
      }),
    );
    vi.stubEnv('HERALD_LOG', 'info');
  });
});
