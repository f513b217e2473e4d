import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { consoleRoutes, routesOf, type RouteSpec, type UserRole } from '../../../contract';
import { ROUTE_ACCESS, accessOf, roleMay } from '../../../server/api/console/route-access';
import { ADMIN, ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';

const label = (spec: RouteSpec) => `${spec.method.toUpperCase()} ${spec.path}`;
const NO_SUCH_ID = '999999';
const NO_SUCH_SESSION = 'f'.repeat(64);

/**
 * Calls a route as a browser tab would, with the params filled by ids that match nothing, and
 * answers the status and envelope. A stream is cancelled once its status is in.
 */
async function callRoute(url: string, spec: RouteSpec, cookie: string) {
  const id = spec.path.includes('/sessions/') ? NO_SUCH_SESSION : NO_SUCH_ID;
  const hasBody = spec.method !== 'get' && spec.method !== 'delete';
  const controller = new AbortController();
  const res = await fetch(url + spec.path.replace('{id}', id), {
    method: spec.method.toUpperCase(),
    headers: {
      ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body: hasBody ? '{}' : undefined,
    redirect: 'manual',
    signal: controller.signal,
  });
  const json = (res.headers.get('content-type') ?? '').includes('application/json');
  const body = json ? ((await res.json()) as { code: number; msg: string; data: unknown }) : null;
  if (!json) controller.abort();
  return { status: res.status, body };
}

describe('roles: every console route, for every role', () => {
  let herald: TestHerald;
  let teammates = 0;

  /** A signed-in browser per role, of this test's own: the walk signs its sessions out. */
  const browsers = async (): Promise<Record<UserRole | 'anonymous', ConsoleClient>> => {
    // Signed in afresh: an earlier walk's "sign out my other sessions" ended the helper's.
    const admin = new ConsoleClient(herald.url);
    await admin.ok('POST', '/login', ADMIN);
    const teammate = async (role: UserRole) => {
      const username = `${role}-${++teammates}`;
      await admin.ok('POST', '/users', { username, role, password: 'teammate password' });
      const client = new ConsoleClient(herald.url);
      await client.ok('POST', '/login', { username, password: 'teammate password' });
      return client;
    };
    return {
      admin,
      anonymous: new ConsoleClient(herald.url),
      editor: await teammate('editor'),
      viewer: await teammate('viewer'),
    };
  };

  beforeAll(async () => {
    herald = await startTestHerald();
  });
  afterAll(() => herald?.close(true));

  it('the access table names every route of the contract, and agrees with it on public', () => {
    const specs = routesOf(consoleRoutes);
    for (const spec of specs) expect(() => accessOf(spec), label(spec)).not.toThrow();
    const entries = Object.values(ROUTE_ACCESS).flatMap((routes) => Object.keys(routes));
    expect(entries).toHaveLength(specs.length);
  });

  it('admits each role exactly where the table says: 403 in the envelope elsewhere', async () => {
    // Signing out is walked last, so it does not end the sessions the walk uses.
    const specs = routesOf(consoleRoutes).sort(
      (a, b) => Number(a === consoleRoutes.auth.logout) - Number(b === consoleRoutes.auth.logout),
    );
    const clients = await browsers();
    const wrong: string[] = [];
    for (const spec of specs) {
      const access = accessOf(spec);
      for (const who of ['viewer', 'editor', 'admin', 'anonymous'] as const) {
        const { status, body } = await callRoute(herald.url, spec, clients[who].cookie);
        const expected =
          access === 'public'
            ? 'answered'
            : who === 'anonymous'
              ? 401
              : roleMay(who, access)
                ? 'answered'
                : 403;
        // A public route may refuse with 401 itself (a used desktop secret), never with 403.
        const got = status === 403 || (status === 401 && access !== 'public') ? status : 'answered';
        if (got !== expected) wrong.push(`${who} ${label(spec)}: ${status} ${body?.msg}`);
        if (got === 403) {
          expect(body).toEqual({
            code: 403,
            msg: `forbidden: this needs the ${access} role; you are ${who}`,
            data: null,
          });
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it('issue 44 §3.5: a message’s share link reaches only the roles that may share it', async () => {
    const { admin, editor, viewer } = await browsers();
    const hosted = await admin.ok('POST', '/channels', {
      name: `hosted-${++teammates}`,
      type: 'hosted',
      config: {},
    });
    const { token } = await admin.createTemplate(
      { name: `shared-${teammates}`, text: 'shared body' },
      [{ channelId: hosted.id, contentType: 'text' }],
    );
    const title = `shared ${teammates}`;
    expect((await herald.sendV2({ token, title })).status).toBe(200);
    const message = await herald.waitFor(async () =>
      (await admin.ok('GET', '/messages')).items.find((m: { title: string }) => m.title === title),
    );
    const { previewUrl } = await admin.ok('POST', `/messages/${message.id}/link`);
    expect(previewUrl).toMatch(/^http/);
    expect((await viewer.post(`/messages/${message.id}/link`)).status).toBe(403);

    const seenBy = async (client: ConsoleClient) => ({
      listed: (await client.ok('GET', '/messages')).items.find(
        (m: { id: number }) => m.id === message.id,
      ).previewUrl,
      opened: (await client.ok('GET', `/messages/${message.id}`)).previewUrl,
      marked: (await client.ok('PATCH', `/messages/${message.id}`, { read: true })).previewUrl,
    });
    const link = { listed: previewUrl, opened: previewUrl, marked: previewUrl };
    expect(await seenBy(editor)).toEqual(link);
    expect(await seenBy(admin)).toEqual(link);
    expect(await seenBy(viewer)).toEqual({ listed: null, opened: null, marked: null });
  });

  it('a viewer reads the dashboard, the logs and the reader, and nothing with a secret', async () => {
    const { viewer } = await browsers();
    for (const path of ['/stats', '/logs', '/messages', '/messages/unread-count', '/me']) {
      expect((await viewer.get(path)).status, path).toBe(200);
    }
    for (const path of ['/channels', '/tasks', '/templates', '/settings', '/users']) {
      expect((await viewer.get(path)).status, path).toBe(403);
    }
  });
});
