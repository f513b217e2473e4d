import type { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { consoleRoutes, routesOf, type RouteSpec } from '../../../contract';
import { openApiDocument } from '../../../server/api/openapi';
import {
  createConsoleRouter,
  type ConsoleRouterDeps,
} from '../../../server/api/console/console-router';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

/**
 * The console routes Express answers, the contract's route tables and the served OpenAPI
 * document are one list: a route added to a router without the contract (or the other way
 * round) fails here, and so does a route whose sign-in rule differs from the table's.
 */

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `METHOD /api/console/path/{param}` of every route a router (and the routers in it) holds. */
function routesIn(router: { stack?: Layer[] }): string[] {
  return (router.stack ?? []).flatMap((layer) => {
    if (layer.route) {
      const path = layer.route.path.replace(/:(\w+)/g, '{$1}');
      return Object.keys(layer.route.methods)
        .filter((method) => method !== 'options')
        .map((method) => `${method.toUpperCase()} /api/console${path}`);
    }
    return layer.handle?.stack ? routesIn(layer.handle) : [];
  });
}

/** Parts no route runs while the router is only being built. */
const unusedParts = new Proxy({}, { get: () => ({}) }) as ConsoleRouterDeps;

const label = (spec: RouteSpec) => `${spec.method.toUpperCase()} ${spec.path}`;
const tables = routesOf(consoleRoutes);

describe('the console routes, the contract and the OpenAPI document', () => {
  let herald: TestHerald;
  beforeAll(async () => {
    herald = await startTestHerald();
  });
  afterAll(() => herald.close(true));

  it('every route the console router answers is in the served document, and only those', async () => {
    const answered = routesIn(createConsoleRouter(unusedParts) as Router & { stack: Layer[] });
    const res = await fetch(`${herald.url}/api/openapi.json`);
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/console/'))
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));

    expect([...new Set(answered)].sort()).toEqual(documented.sort());
    expect(answered.length).toBe(new Set(answered).size);
    expect(documented.sort()).toEqual(tables.map(label).sort());
    expect(doc).toEqual(JSON.parse(JSON.stringify(openApiDocument(herald.server.ctx.version))));
  });

  it('every documented route is answered by a route of its own, not the 404 for unknown paths', async () => {
    const unanswered: string[] = [];
    // Signing out last: every other call needs the session.
    const ordered = [...tables].sort(
      (a, b) => Number(a === consoleRoutes.auth.logout) - Number(b === consoleRoutes.auth.logout),
    );
    for (const spec of ordered) {
      const path = spec.path.replace('/api/console', '').replace(/\{\w+\}/g, '999999');
      // HEAD for the event stream: its headers, without a stream to close.
      const method = spec === consoleRoutes.events.stream ? 'HEAD' : spec.method.toUpperCase();
      const withBody = method !== 'GET' && method !== 'HEAD';
      if (spec.answers === 'attachment' || spec.answers === 'redirect') {
        // A file to download or a redirect (the OpenID Connect round trip), not JSON: the status
        // says whether a route of its own answered.
        const file = await fetch(`${herald.url}${spec.path}`, {
          headers: { Cookie: herald.console.cookie },
          redirect: 'manual',
        });
        await file.arrayBuffer();
        if (file.status === 404) unanswered.push(label(spec));
        continue;
      }
      const res = await herald.console.request(method, path, withBody ? {} : undefined);
      if (res.status === 404 && String(res.body?.msg).startsWith('no such endpoint')) {
        unanswered.push(label(spec));
      }
    }

    expect(unanswered).toEqual([]);
  });

  it('a route answers 401 without a session exactly when the table says it needs one', async () => {
    const wrong: string[] = [];
    for (const spec of tables) {
      const path = spec.path.replace(/\{\w+\}/g, '1');
      const res = await fetch(`${herald.url}${path}`, {
        method: spec.method.toUpperCase(),
        redirect: 'manual',
        ...(spec.method === 'get'
          ? {}
          : { headers: { 'Content-Type': 'application/json' }, body: '{}' }),
      });
      // A redirect (the OpenID Connect round trip) answers no envelope.
      const body = (
        res.headers.get('content-type')?.includes('json') ? await res.json() : { msg: '' }
      ) as { msg: string };
      const refused = res.status === 401 && body.msg === 'not signed in';
      if (refused !== !spec.public) wrong.push(`${label(spec)}: ${res.status} ${body.msg}`);
    }

    expect(wrong).toEqual([]);
  });
});
