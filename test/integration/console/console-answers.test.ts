import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  consoleRoutes,
  publicRoutes,
  routesOf,
  sendRoutes,
  type RouteSpec,
} from '../../../contract';
import {
  ADMIN,
  ConsoleClient,
  startTestHerald,
  type ApiResult,
  type TestHerald,
} from '../../helpers/herald';
import { browserKeys } from '../../helpers/local-push-service';
import { authenticatorCode } from '../../helpers/totp-code';
import { buildSqliteMessageNest } from '../message-nest/mn-fixture';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read as loose JSON first */

/**
 * What the server really answers, route by route (the send APIs' too), parsed with the
 * contract's response schemas (strict objects: a field the contract does not name fails too),
 * so the contract cannot drift from the server. Every route that answers the envelope must have
 * a call here.
 */

const label = (spec: RouteSpec) => `${spec.method.toUpperCase()} ${spec.path}`;

/** The path of a console route below /api/console, its `{id}` filled in. */
const pathOf = (spec: RouteSpec, id?: number | string, query = '') =>
  spec.path.replace('/api/console', '').replace('{id}', String(id)) + query;

describe('the console API answers what the contract describes', () => {
  let herald: TestHerald;
  let fresh: TestHerald;
  let work: string;
  let upload: Buffer;
  const answers: Array<{ spec: RouteSpec; res: ApiResult }> = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'herald-answers-'));
    await buildSqliteMessageNest(join(work, 'database.db'));
    upload = readFileSync(join(work, 'database.db'));
    // A Herald before its first administrator; closed first, as the models serve one at a time.
    fresh = await startTestHerald({ setup: false });
    await call(consoleRoutes.auth.status, { on: fresh });
    await call(consoleRoutes.auth.setup, {
      on: fresh,
      body: { ...ADMIN, setupCode: fresh.server.setupCode() },
    });
    await fresh.close(true);
    // One attempt: the unreachable webhook's delivery fails at once.
    herald = await startTestHerald({ settings: { retry: { maxAttempts: 1 } } });
  });

  afterAll(async () => {
    await herald?.close(true);
    rmSync(work, { recursive: true, force: true });
  });

  /** Calls a console route and keeps the answer for the check below. */
  const call = async (
    spec: RouteSpec,
    options: {
      id?: number | string;
      query?: string;
      body?: unknown;
      on?: TestHerald;
      client?: ConsoleClient;
    } = {},
  ) => {
    const client = options.client ?? (options.on ?? herald).console;
    const res = await client.request(
      spec.method.toUpperCase(),
      pathOf(spec, options.id, options.query),
      spec.method === 'get' ? undefined : (options.body ?? {}),
    );
    answers.push({ spec, res });
    if (res.body?.code !== 200) {
      throw new Error(`${label(spec)} → ${res.status} ${JSON.stringify(res.body)}`);
    }
    return res.body.data;
  };

  it('every route that answers the envelope answers its response schema', async () => {
    const { auth, channels, tasks, templates, instances, logs, messages } = consoleRoutes;
    const c = herald.console;

    // Message Nest's rows first: imported tasks, templates, logs and messages are listed below.
    const uploaded = await fetch(`${herald.url}/api/console/import/message-nest?withLogs=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream', Cookie: c.cookie },
      body: upload,
    });
    answers.push({
      spec: consoleRoutes.import.messageNest,
      res: {
        status: uploaded.status,
        headers: uploaded.headers,
        body: (await uploaded.json()) as any,
      },
    });

    const hosted = await herald.createChannel('hosted', {}, 'answers hosted');
    const unreachable = await herald.createChannel(
      'webhook',
      { url: 'http://127.0.0.1:1/hook' },
      'answers unreachable',
    );
    const { task, token: taskToken } = await herald.createTask('answers task', [
      { channelId: hosted.id, contentType: 'text', publicLink: true },
    ]);
    const { template, token } = await herald.createTemplate(
      {
        name: 'answers template',
        text: 'hello {{who}}',
        placeholders: [{ key: 'who', label: 'Who', default: 'world' }],
      },
      [
        { channelId: hosted.id, contentType: 'text' },
        { channelId: unreachable.id, contentType: 'text' },
      ],
    );
    const sent = async (spec: RouteSpec, res: ApiResult) => {
      answers.push({ spec, res });
      return res;
    };
    await sent(
      sendRoutes.v2,
      await herald.sendV2({ token, title: 'first', placeholders: { who: 'you' } }),
    );
    await sent(sendRoutes.v2, await herald.sendV2({ token, title: 'second' }));
    const v1 = await sent(
      sendRoutes.v1,
      await herald.sendV1({ token: taskToken, title: 'v1', text: 'x', mode: 'sync' }),
    );
    expect(v1.body.data).toMatchObject({ status: 'sent', hostMessageUrl: expect.any(String) });
    const async = await sent(
      sendRoutes.v1,
      await herald.sendV1({ token: taskToken, title: 'v1 async', text: 'x', mode: 'async' }),
    );
    expect(async.body.data.status).toBe('queued');
    // A hosted delivery sent and a webhook failed for good: partial, with each result.
    const { token: mixedToken } = await herald.createTask('answers mixed', [
      { channelId: hosted.id, contentType: 'text' },
      { channelId: unreachable.id, contentType: 'text' },
    ]);
    const partial = await sent(
      sendRoutes.v1,
      await herald.sendV1({ token: mixedToken, title: 'v1 partial', text: 'x', mode: 'sync' }),
    );
    expect(partial.body.data.status).toBe('partial');
    expect(partial.body.data.results).toHaveLength(2);
    const failed = await herald.waitFor(async () => {
      const list = await c.ok('GET', '/logs?api=v2');
      const detail = await c.ok('GET', `/logs/${list.items[0].id}`);
      return detail.deliveries.find((d: any) => d.status === 'failed');
    });

    await call(auth.status);
    await call(auth.me);
    await call(auth.login, { body: ADMIN });
    await call(auth.password, {
      body: { currentPassword: ADMIN.password, newPassword: ADMIN.password },
    });

    await call(channels.types);
    const channelList = await call(channels.list);
    expect(channelList.items.length).toBeGreaterThan(2);
    await call(channels.list, { query: '?type=hosted&q=answers' });
    const spareChannel = await call(channels.create, {
      body: { name: 'answers spare', type: 'hosted', config: {} },
    });
    await call(channels.get, { id: hosted.id });
    await call(channels.update, { id: spareChannel.id, body: { description: 'spare' } });
    await call(channels.test, { id: hosted.id, body: {} });
    await call(channels.test, { id: unreachable.id, body: {} });
    await call(channels.testUnsaved, {
      body: { type: 'webhook', config: { url: 'http://127.0.0.1:1/unsaved' } },
    });

    expect((await call(tasks.list)).items.length).toBeGreaterThan(1);
    await call(tasks.list, { query: '?name=answers&page=1&pageSize=5' });
    const spareTask = await call(tasks.create, { body: { name: 'answers spare task' } });
    await call(tasks.get, { id: task.id });
    await call(tasks.update, { id: task.id, body: { name: 'answers task renamed' } });
    await call(tasks.token, { id: task.id });
    await call(tasks.rotateToken, { id: spareTask.id });
    await call(tasks.instances, { id: task.id });
    const spareInstance = await call(tasks.addInstance, {
      id: spareTask.id,
      body: { channelId: hosted.id, contentType: 'markdown' },
    });

    expect((await call(templates.list)).items.length).toBeGreaterThan(1);
    const spareTemplate = await call(templates.create, { body: { name: 'answers spare tpl' } });
    await call(templates.previewUnsaved, {
      body: { text: 'hi {{x}}', definitions: [{ key: 'x', label: 'X' }], placeholders: { x: 1 } },
    });
    await call(templates.get, { id: template.id });
    await call(templates.update, { id: template.id, body: { description: 'put' } });
    await call(templates.patch, { id: template.id, body: { atMobiles: '' } });
    await call(templates.token, { id: template.id });
    await call(templates.rotateToken, { id: spareTemplate.id });
    await call(templates.preview, { id: template.id, body: { placeholders: { who: 'me' } } });
    await call(templates.instances, { id: template.id });
    await call(templates.addInstance, {
      id: spareTemplate.id,
      body: { channelId: hosted.id, contentType: 'html', enabled: false },
    });

    // Quiet hours and digests (issue 46): a rule of each owner kind, read, changed and removed.
    const { quietHours, digests, signIn } = consoleRoutes;
    const quiet = await call(quietHours.create, {
      body: {
        ownerType: 'instance',
        ownerId: spareInstance.id,
        timezone: 'Europe/Berlin',
        start: '22:00',
        end: '07:00',
        action: 'hold',
      },
    });
    await call(quietHours.list, { query: `?ownerType=instance&ownerId=${spareInstance.id}` });
    await call(quietHours.preview, { query: `?instanceId=${spareInstance.id}&priority=3` });
    await call(quietHours.update, { id: quiet.id, body: { enabled: false } });
    await call(quietHours.remove, { id: quiet.id });
    for (const [put, get, remove, id] of [
      [digests.taskPut, digests.taskGet, digests.taskRemove, spareTask.id],
      [digests.templatePut, digests.templateGet, digests.templateRemove, spareTemplate.id],
      [digests.instancePut, digests.instanceGet, digests.instanceRemove, spareInstance.id],
    ] as const) {
      await call(put, { id, body: { windowMinutes: 10 } });
      await call(get, { id });
      await call(remove, { id });
    }
    // Sign-in (issue 44): what the sign-in page asks, and Settings → Sign-in.
    await call(signIn.methods);
    await call(signIn.settings);
    await call(signIn.updateSettings, { body: { buttonLabel: 'Company sign-in' } });

    await call(instances.update, { id: spareInstance.id, body: { enabled: false } });
    await call(instances.remove, { id: spareInstance.id });

    const sendList = await call(logs.list);
    expect(sendList.items.length).toBeGreaterThan(3);
    await call(logs.list, {
      query: '?api=v2&status=partial&from=2020-01-01&to=2099-12-31&q=first&templateId=1',
    });
    for (const send of sendList.items.slice(0, 5)) await call(logs.get, { id: send.id });
    const imported = sendList.items.at(-1);
    await call(logs.get, { id: imported.id });
    await call(logs.retry, { id: failed.id });

    const messageList = await call(messages.list);
    expect(messageList.items.length).toBeGreaterThan(2);
    await call(messages.list, { query: '?unread=1&q=first' });
    await call(messages.unreadCount);
    const [first, second] = messageList.items;
    await call(messages.get, { id: first.id });
    await call(messages.setRead, { id: first.id, body: { read: true } });
    await call(messages.readAll);
    const { previewUrl } = await call(messages.createLink, { id: first.id });

    const key = String(previewUrl).split('/').at(-1);
    const preview = await fetch(`${herald.url}/api/public/preview/${key}`);
    answers.push({
      spec: publicRoutes.preview.preview,
      res: {
        status: preview.status,
        headers: preview.headers,
        body: (await preview.json()) as any,
      },
    });
    await call(messages.revokeLink, { id: first.id });
    const images = consoleRoutes.imageProxy;
    await call(images.choices);
    await call(images.setAlways, { body: { always: true } });
    await call(images.setMessage, { id: first.id, body: { show: true } });
    // Two path parameters: pathOf fills {id} only.
    const sourcePath = `/remote-images/sources/template/${template.id}`;
    const source = await herald.console.request('PUT', sourcePath, { show: true });
    expect(source.body.code).toBe(200);
    answers.push({ spec: images.setSource, res: source });
    // A known push service's endpoint, removed again before anything else is sent.
    const { push } = consoleRoutes;
    await call(push.key);
    const pushKeys = browserKeys();
    const subscribed = await call(push.create, {
      body: {
        endpoint: 'https://fcm.googleapis.com/fcm/send/answers',
        keys: { p256dh: pushKeys.p256dh, auth: pushKeys.auth },
        deviceName: 'answers',
      },
    });
    await call(push.list);
    await call(push.remove, { id: subscribed.id });
    for (const kindOf of [token, mixedToken]) {
      const kind = await herald.post(publicRoutes.tokens.kind.path, { token: kindOf });
      answers.push({ spec: publicRoutes.tokens.kind, res: kind });
    }

    const { schedules } = consoleRoutes;
    const schedule = await call(schedules.create, {
      body: { name: 'answers schedule', taskId: task.id, cron: '0 9 * * 1', title: 't', text: 'x' },
    });
    const once = await call(schedules.create, {
      body: {
        name: 'answers once',
        templateId: template.id,
        runAt: new Date(Date.now() + 86_400_000).toISOString(),
        title: 't',
        placeholders: { who: 1 },
      },
    });
    await call(schedules.list);
    await call(schedules.list, { query: '?name=answers&page=1&pageSize=5' });
    await call(schedules.preview, { query: '?cron=0%209%20*%20*%201&timezone=UTC&count=3' });
    await call(schedules.get, { id: schedule.id });
    await call(schedules.update, { id: schedule.id, body: { enabled: false } });
    await call(schedules.patch, { id: once.id, body: { catchUp: 'skip' } });
    const run = await call(schedules.run, { id: schedule.id });
    expect(run.schedule.lastSendId).toBe(run.sendId);
    await call(schedules.remove, { id: once.id });

    await call(consoleRoutes.settings.get);
    await call(consoleRoutes.settings.update, { body: { showRemoteImages: false } });
    await call(consoleRoutes.maintenance.info);
    await call(consoleRoutes.maintenance.prune);
    await call(consoleRoutes.backup.schedule);
    await call(consoleRoutes.backup.updateSchedule, { body: { keep: 5 } });
    await call(consoleRoutes.stats.get);
    await call(consoleRoutes.stats.get, { query: '?days=7' });
    await call(consoleRoutes.stats.channelHealth);
    await call(consoleRoutes.stats.notices);
    // By now the changes above are in the audit log: a page of them, and one filtered.
    await call(consoleRoutes.audit.list);
    await call(consoleRoutes.audit.list, { query: '?action=channel.create&user=admin&q=answers' });

    const { users, account } = consoleRoutes;
    const invited = await call(users.create, {
      body: { username: 'answers-invited', role: 'viewer' },
    });
    await call(users.create, {
      body: { username: 'answers-editor', role: 'editor', password: 'answers password' },
    });
    await call(users.list);
    const reissued = await call(users.invite, { id: invited.id });
    const inviteToken = new URL(reissued.inviteUrl).searchParams.get('token')!;
    const invitee = new ConsoleClient(herald.url);
    await call(account.invite, { query: `?token=${inviteToken}`, client: invitee });
    await call(account.acceptInvite, {
      body: { token: inviteToken, password: 'answers invited' },
      client: invitee,
    });
    await call(users.update, { id: invited.id, body: { role: 'editor' } });
    await call(users.sessions, { id: invited.id });
    await call(users.revokeSessions, { id: invited.id });
    const otherTab = new ConsoleClient(herald.url);
    await otherTab.ok('POST', '/login', ADMIN);
    const sessions = await call(account.sessions);
    const other = sessions.items.find((s: { current: boolean }) => !s.current).id;
    await call(account.revokeSession, { id: other });
    await call(account.revokeSessions);
    await call(account.password, {
      body: { current: ADMIN.password, new: ADMIN.password },
    });
    const { twoFactor } = consoleRoutes;
    const enrollee = new ConsoleClient(herald.url);
    const editor = { username: 'answers-editor', password: 'answers password' };
    await enrollee.ok('POST', '/login', editor);
    await call(twoFactor.status, { client: enrollee });
    const { secret } = await call(twoFactor.setup, { client: enrollee });
    const { recoveryCodes } = await call(twoFactor.enable, {
      client: enrollee,
      body: { code: authenticatorCode(secret, Date.now()) },
    });
    // A recovery code rather than the app's: the step just used would not be taken again.
    const renewed = await call(twoFactor.recoveryCodes, {
      client: enrollee,
      body: { code: recoveryCodes[0] },
    });
    await call(auth.login, {
      client: new ConsoleClient(herald.url),
      body: { ...editor, code: renewed.recoveryCodes[0] },
    });
    await call(twoFactor.disable, { client: enrollee, body: { password: editor.password } });
    await call(users.update, { id: invited.id, body: { resetTwoFactor: true } });
    await call(users.remove, { id: invited.id });
    await call(messages.remove, { id: second.id });
    await call(templates.remove, { id: spareTemplate.id });
    await call(tasks.remove, { id: spareTask.id });
    await call(channels.remove, { id: spareChannel.id });
    await call(auth.logout);

    const mismatches = answers.flatMap(({ spec, res }) => {
      if (res.body?.code !== 200) return [`${label(spec)}: ${res.status} ${res.body?.msg}`];
      const parsed = spec.response!.safeParse(res.body.data);
      return parsed.success
        ? []
        : parsed.error.issues.map(
            (issue) => `${label(spec)}: ${issue.path.join('.')}: ${issue.message}`,
          );
    });
    expect(mismatches).toEqual([]);

    const called = new Set(answers.map(({ spec }) => spec));
    const envelopeRoutes = routesOf({ ...consoleRoutes, ...publicRoutes, send: sendRoutes }).filter(
      (spec) => spec.response,
    );
    expect(envelopeRoutes.filter((spec) => !called.has(spec)).map(label)).toEqual([]);
  }, 120_000);
});
