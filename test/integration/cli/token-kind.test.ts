import { request } from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';

/**
 * POST /api/public/token-kind, what `herald send` asks before choosing V1 or V2: the kind a
 * token carries, behind the same guards as the send APIs (Host allow-list, cross-site).
 */
describe('POST /api/public/token-kind', () => {
  let herald: TestHerald;
  const path = '/api/public/token-kind';

  beforeAll(async () => {
    herald = await startTestHerald();
  });
  afterAll(() => herald.close(true));

  it('tells a task token from a template token, even without a Content-Type', async () => {
    const { token: taskToken } = await herald.createTask('kind-task', []);
    const { token: templateToken } = await herald.createTemplate({ text: 'x' }, []);
    expect((await herald.post(path, { token: taskToken })).body).toEqual({
      code: 200,
      msg: 'success',
      data: { kind: 'task' },
    });
    const res = await fetch(`${herald.url}${path}`, {
      method: 'POST',
      body: JSON.stringify({ token: templateToken }),
    });
    expect(await res.json()).toMatchObject({ code: 200, data: { kind: 'template' } });
  });

  it('refuses what is not a token, and bad input, with 400 naming it', async () => {
    const forged = await herald.post(path, { token: 'A'.repeat(56) });
    expect([forged.status, forged.body.msg]).toEqual([
      400,
      expect.stringMatching(/^token: not a Herald token: /),
    ]);
    for (const body of [{}, { token: '' }, { token: 5 }, { token: 't', extra: 1 }]) {
      const res = await herald.post(path, body);
      expect([res.status, res.body.msg], JSON.stringify(body)).toEqual([
        400,
        expect.stringMatching(/^(token|Unrecognized key: "extra")/),
      ]);
    }
    const notJson = await herald.post(path, '{"token": ');
    expect([notJson.status, notJson.body.code]).toEqual([400, 400]);
  });

  it('keeps out other sites’ pages and other Host names', async () => {
    const crossSite = await herald.post(path, { token: 't' }, { 'Sec-Fetch-Site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    // fetch may not set Host: node:http may.
    const { port } = new URL(herald.url);
    const otherHost = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path, method: 'POST', headers: { Host: 'evil.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end('{"token":"t"}');
    });
    expect(otherHost).toBe(421);
  });
});
