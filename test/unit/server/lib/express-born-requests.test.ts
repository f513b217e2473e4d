import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';

import { expressBornClasses } from '../../../../server/lib/express-born-requests';

describe('expressBornClasses', () => {
  let server: Server | undefined;
  // fetch keeps its connections open: close them too, or close() waits for them.
  const stop = async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  };
  afterEach(stop);

  /** Serves `app` over loopback, noting each request's and response's prototypes at birth. */
  async function serve(app: express.Express, born: boolean) {
    const seen: Array<{ request: unknown; response: unknown }> = [];
    server = createServer(born ? expressBornClasses(app) : {}, app);
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen.push({ request: Object.getPrototypeOf(req), response: Object.getPrototypeOf(res) });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, seen };
  }

  function app() {
    const a = express();
    a.post('/echo', express.json(), (req, res) => {
      res
        .status(201)
        .append('X-Seen', String(req.get('X-Probe')))
        .json({ body: req.body as unknown, path: req.path });
    });
    return a;
  }

  it('builds requests and responses that already have the app’s prototypes', async () => {
    const a = app();
    const { url, seen } = await serve(a, true);
    const res = await fetch(`${url}/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Probe': 'p' },
      body: '{"a":1}',
    });
    expect(seen).toEqual([{ request: a.request, response: a.response }]);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-seen')).toBe('p');
    expect(await res.json()).toEqual({ body: { a: 1 }, path: '/echo' });
  });

  it('answers exactly as without them (status, headers, body), keep-alive included', async () => {
    const answers = [];
    for (const born of [false, true]) {
      const { url } = await serve(app(), born);
      const one = [];
      for (const body of ['{"a":1}', '{not json', '']) {
        const res = await fetch(`${url}/echo`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
        });
        const headers = Object.fromEntries(
          [...res.headers].filter(([name]) => name !== 'date' && name !== 'etag'),
        );
        one.push({ status: res.status, headers, text: await res.text() });
      }
      answers.push(one);
      await stop();
    }
    expect(answers[1]).toEqual(answers[0]);
  });
});
