import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { rawRequest, type RawResponse } from '../../helpers/exact-request';

/**
 * POSTs to the send paths spelt exactly so take a shorter way through the app than other
 * spellings of the same route (a query string, a trailing slash, another case). Both ways must
 * answer alike: the same guards, in the same order, with the same answers.
 */
describe('the send paths answer alike however they are spelt', () => {
  let herald: TestHerald;
  let port: number;
  let templateToken: string;
  let taskToken: string;

  beforeAll(async () => {
    herald = await startTestHerald({ corsOrigins: ['https://dash.example'] });
    port = herald.server.port;
    const hosted = await herald.createChannel('hosted');
    ({ token: templateToken } = await herald.createTemplate({ text: 'hello {{who}}' }, [
      { channelId: hosted.id, contentType: 'text' },
    ]));
    ({ token: taskToken } = await herald.createTask('spellings', [
      { channelId: hosted.id, contentType: 'text' },
    ]));
  });
  afterAll(() => herald.close(true));

  const spellings = (path: string) => [path, `${path}?via=script`, `${path}/`, path.toUpperCase()];

  /** What must not differ between spellings: everything but the Date header. */
  const answer = (res: RawResponse) => {
    const { date: _date, ...headers } = res.headers;
    return { status: res.status, headers, body: res.body as unknown };
  };

  const cases: Array<{
    name: string;
    headers?: Record<string, string>;
    body: (api: 'v1' | 'v2') => string;
  }> = [
    {
      name: 'a refused token',
      body: (api) =>
        JSON.stringify({ token: 'nope', title: 't', ...(api === 'v1' && { text: 'x' }) }),
    },
    { name: 'a body that is not JSON', body: () => '{not json' },
    { name: 'a JSON array', body: () => '[]' },
    {
      name: 'no title',
      body: (api) => JSON.stringify({ token: api === 'v1' ? taskToken : templateToken }),
    },
    {
      name: 'a foreign Host',
      headers: { Host: 'attacker.example' },
      body: () => JSON.stringify({ token: templateToken, title: 't' }),
    },
    {
      name: 'a cross-site page',
      headers: { Origin: 'https://attacker.example', 'Sec-Fetch-Site': 'cross-site' },
      body: () => JSON.stringify({ token: templateToken, title: 't' }),
    },
    {
      name: 'a listed CORS origin with a bad body',
      headers: { Origin: 'https://dash.example', 'Sec-Fetch-Site': 'cross-site' },
      body: () => '{',
    },
    {
      name: 'a body over the limit',
      body: () => JSON.stringify({ token: templateToken, title: 'x'.repeat(2_000_000) }),
    },
  ];

  for (const api of ['v1', 'v2'] as const) {
    it(`${api}: refusals are the same on every spelling, in code and in always200 mode`, async () => {
      const path = `/api/${api}/message/send`;
      for (const mode of ['code', 'always200'] as const) {
        await herald.console.ok('PUT', '/settings', { sendApi: { httpStatus: mode } });
        for (const c of cases) {
          const answers = [];
          for (const spelt of spellings(path)) {
            const res = await rawRequest(port, {
              method: 'POST',
              path: spelt,
              headers: { 'Content-Type': 'application/json', ...c.headers },
              body: c.body(api),
            });
            answers.push(answer(res));
          }
          for (const other of answers.slice(1))
            expect(other, `${mode}: ${c.name}`).toEqual(answers[0]);
          expect(answers[0].status, `${mode}: ${c.name}`).toBeGreaterThanOrEqual(
            mode === 'code' ? 400 : 200,
          );
          expect(answers[0].headers['content-security-policy'], c.name).toBeDefined();
        }
      }
      await herald.console.ok('PUT', '/settings', { sendApi: { httpStatus: 'code' } });
    });

    it(`${api}: a good send is accepted on every spelling, with the same headers`, async () => {
      const path = `/api/${api}/message/send`;
      const shapes = [];
      for (const spelt of spellings(path)) {
        const res = await rawRequest(port, {
          method: 'POST',
          path: spelt,
          headers: { 'Content-Type': 'text/plain' },
          body: JSON.stringify(
            api === 'v1'
              ? { token: taskToken, title: spelt, text: 'x', mode: 'async' }
              : { token: templateToken, title: spelt, placeholders: { who: 'you' } },
          ),
        });
        expect(res.status, spelt).toBe(200);
        expect(res.body.code, spelt).toBe(200);
        const { date: _date, 'content-length': _length, ...headers } = res.headers;
        shapes.push({ headers, keys: Object.keys(res.body.data as object).sort() });
      }
      for (const other of shapes.slice(1)) expect(other).toEqual(shapes[0]);
    });
  }
});
