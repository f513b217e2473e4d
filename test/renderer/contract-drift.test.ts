import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';

import {
  consoleRoutes,
  publicRoutes,
  routesOf,
  type ResponseOf,
  type RouteSpec,
  type Task,
} from '../../contract';
import { auditApi } from '../../renderer/src/api/audit-api';
import { backupApi } from '../../renderer/src/api/backup-api';
import { accountApi } from '../../renderer/src/api/account-api';
import { channelsApi } from '../../renderer/src/api/channels-api';
import { digestsApi } from '../../renderer/src/api/digests-api';
import { call, type PathOf } from '../../renderer/src/api/http-client';
import { importApi } from '../../renderer/src/api/import-api';
import { instancesApi } from '../../renderer/src/api/instances-api';
import { logsApi } from '../../renderer/src/api/logs-api';
import { maintenanceApi } from '../../renderer/src/api/maintenance-api';
import { messagesApi } from '../../renderer/src/api/messages-api';
import { publicApi } from '../../renderer/src/api/public-api';
import { pushApi } from '../../renderer/src/api/push-api';
import { quietHoursApi } from '../../renderer/src/api/quiet-hours-api';
import { remoteImagesApi } from '../../renderer/src/api/remote-images-api';
import { schedulesApi } from '../../renderer/src/api/schedules-api';
import { sessionApi } from '../../renderer/src/api/session-api';
import { settingsApi } from '../../renderer/src/api/settings-api';
import { signInApi } from '../../renderer/src/api/sign-in-api';
import { tasksApi } from '../../renderer/src/api/tasks-api';
import { templatesApi } from '../../renderer/src/api/templates-api';
import { usersApi } from '../../renderer/src/api/users-api';
import { installFakeApi } from './helpers/fake-api';

/**
 * The console and the contract cannot drift apart: every call the api modules make is typed by
 * a route of contract/ (vue-tsc checks the `@ts-expect-error` lines below), and at run time each
 * call's method and path is a route of the tables, and the console calls every route it is
 * meant to (the tables are imported here as values: a test may; the bundle takes types only).
 */

type Tasks = typeof consoleRoutes.tasks;

const API_MODULES = {
  auditApi,
  backupApi,
  accountApi,
  channelsApi,
  digestsApi,
  importApi,
  instancesApi,
  logsApi,
  maintenanceApi,
  messagesApi,
  publicApi,
  pushApi,
  quietHoursApi,
  remoteImagesApi,
  schedulesApi,
  sessionApi,
  settingsApi,
  signInApi,
  tasksApi,
  templatesApi,
  usersApi,
};

/** Routes the console has no api function for, and why. */
const NOT_CALLED: Record<string, string> = {
  'GET /api/console/backup': 'a download the browser follows as a link (BackupCard), not fetch',
  'GET /api/files/{id}/{filename}':
    'a file sent with a message: a link in the log drawer and the reader, not fetch',
  'GET /api/console/desktop-login': 'the desktop window opens it as a page',
  'GET /api/console/events': 'an EventSource (api/events.ts), not fetch',
  'GET /api/console/image-proxy':
    'an <img> src the server writes into a message (GET /messages/{id}), not fetch',
  'GET /api/console/messages/unread-count': 'the message list answers unreadCount too',
  'PATCH /api/console/templates/{id}': 'the console saves with PUT',
  'POST /api/console/password': 'the Account page changes it with POST /account/password',
  'GET /api/console/sso/oidc/login':
    'the sign-in page links to it (the provider takes the whole window), not fetch',
  'GET /api/console/sso/oidc/callback': 'the provider sends the browser there, not the console',
  'POST /api/public/token-kind':
    'for `herald send` (cli/), which tells task from template tokens with it',
};

const label = (spec: RouteSpec) => `${spec.method.toUpperCase()} ${spec.path}`;
const pattern = (spec: RouteSpec) => new RegExp(`^${spec.path.replace(/\{\w+\}/g, '[^/]+')}$`);

afterEach(() => vi.unstubAllGlobals());

describe('the console calls the contract’s routes', () => {
  it('types each call by its route: path, method, body and answer', () => {
    expectTypeOf<PathOf<Tasks['get']>>().toEqualTypeOf<`/tasks/${number}`>();
    expectTypeOf<PathOf<Tasks['rotateToken']>>().toEqualTypeOf<`/tasks/${number}/token/rotate`>();
    expectTypeOf<
      PathOf<typeof publicRoutes.preview.preview>
    >().toEqualTypeOf<`/preview/${string}`>();
    expectTypeOf(tasksApi.get).returns.resolves.toEqualTypeOf<ResponseOf<Tasks['get']>>();
    expectTypeOf<
      Awaited<ReturnType<typeof tasksApi.list>>['items'][number]
    >().toEqualTypeOf<Task>();

    // Never run: vue-tsc refuses each of these calls unless it is marked.
    const drifted = () => [
      // @ts-expect-error the route is GET
      call<Tasks['get']>('POST', '/tasks/1'),
      // @ts-expect-error not the route's path
      call<Tasks['get']>('GET', '/task/1'),
      // @ts-expect-error {id} is a number
      call<Tasks['get']>('GET', '/tasks/abc'),
      // @ts-expect-error the route takes no `title`
      call<Tasks['create']>('POST', '/tasks', { body: { name: 'x', title: 'x' } }),
      // @ts-expect-error a public route needs the public base
      call<typeof publicRoutes.preview.preview>('GET', '/preview/key'),
    ];
    expect(drifted).toBeTypeOf('function');
  });

  it('every api function calls a route of the tables, and every route but a few is called', async () => {
    const { calls } = installFakeApi({});
    const made: string[] = [];
    const record = async (what: string, run: () => unknown) => {
      const before = calls.length;
      // The fake server answers 404: the call was made, which is all this looks at.
      await Promise.resolve(run()).catch(() => undefined);
      expect(calls.length, `${what} made no call`).toBeGreaterThan(before);
      for (const req of calls.slice(before)) {
        const path = req.path.startsWith('/api/') ? req.path : `/api/console${req.path}`;
        made.push(`${req.method} ${path}`);
      }
    };
    for (const [module, api] of Object.entries(API_MODULES)) {
      for (const [name, fn] of Object.entries(
        api as Record<string, (...args: unknown[]) => unknown>,
      )) {
        // An id, a string, a flag: enough to make each call (the upload gets a file).
        const args = module === 'importApi' ? [new Blob(['x']), {}] : [1, 'x', true];
        await record(`${module}.${name}`, () => fn(...args.slice(0, fn.length)));
      }
    }
    await record('templatesApi.preview of a draft', () => templatesApi.preview(null, {}));

    const routes = routesOf({ ...consoleRoutes, ...publicRoutes });
    const routeOf = (call: string) => {
      const [method, path] = call.split(' ');
      return routes.find(
        (spec) => spec.method.toUpperCase() === method && pattern(spec).test(path),
      );
    };
    expect(made.filter((m) => !routeOf(m))).toEqual([]);
    const called = new Set(made.map(routeOf));
    const uncalled = routes.filter((spec) => !called.has(spec)).map(label);
    expect(uncalled.sort()).toEqual(Object.keys(NOT_CALLED).sort());
  });
});
