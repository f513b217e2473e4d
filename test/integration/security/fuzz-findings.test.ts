import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';

/** Failures the fuzz run found outside the send APIs' input checks, pinned down one by one. */
describe('console answers the fuzz found wrong', () => {
  let herald: TestHerald;

  beforeAll(async () => {
    herald = await startTestHerald();
  });

  afterAll(async () => {
    await herald?.close(true);
  });

  it('HEAD /api/console/events answers the stream’s headers and ends instead of hanging', async () => {
    const res = await fetch(`${herald.url}/api/console/events`, {
      method: 'HEAD',
      headers: { Cookie: herald.console.cookie },
      signal: AbortSignal.timeout(10_000),
    });

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await res.text()).toBe('');
  });

  it('OPTIONS under /api/console answers the envelope, not Express’s text/plain method list', async () => {
    for (const path of ['/tasks', '/settings', '/no-such-thing']) {
      const res = await herald.console.request('OPTIONS', path);

      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        code: 404,
        msg: `no such endpoint: OPTIONS ${path}`,
        data: null,
      });
    }
  });
});
