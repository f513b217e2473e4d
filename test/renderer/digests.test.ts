import { afterEach, describe, expect, it, vi } from 'vitest';

import DigestDialog from '../../renderer/src/components/DigestDialog.vue';
import LogDetailDrawer from '../../renderer/src/components/LogDetailDrawer.vue';
import { fail, installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

/**
 * Digests in the console (issue 46 §2): the dialog loads a template's rule, saves a cron window
 * and shows a refusal under the form; turning it off deletes the rule; the send log links a
 * collected send to its digest and lists a digest's sends, in English and Chinese.
 */
afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

const input = (testid: string) =>
  document.querySelector<HTMLInputElement>(`[data-testid="${testid}"] input`) ??
  document.querySelector<HTMLInputElement>(`input[data-testid="${testid}"]`);
const click = (testid: string) =>
  document.querySelector<HTMLElement>(`[data-testid="${testid}"]`)!.click();

describe('the digest dialog', () => {
  it('loads the rule, saves a change, and shows a refusal under the form', async () => {
    let stored: unknown = {
      windowMinutes: 30,
      cron: null,
      timezone: null,
      priorityThreshold: 4,
      titleLimit: 20,
    };
    const { calls } = installFakeApi({
      'GET /templates/:id/digest': () => ok({ rule: stored }),
      'PUT /templates/:id/digest': (req) => {
        if ((req.body as { windowMinutes: number }).windowMinutes === 45) {
          return fail(400, 'cron: is not valid');
        }
        stored = { cron: null, timezone: null, ...(req.body as object) };
        return ok({ rule: stored });
      },
    });
    const { wrapper } = mountWithApp(DigestDialog, {
      props: { open: true, source: { kind: 'template', id: 3, name: 'backups' } },
    });
    await settle();
    expect(document.querySelector('[data-testid="digest-dialog"]')?.textContent).toContain(
      'Digest of backups',
    );
    expect(input('digest-minutes')?.value).toBe('30');
    click('digest-save');
    await settle();
    const put = calls.find((c) => c.method === 'PUT');
    expect(put?.path).toBe('/templates/3/digest');
    expect(put?.body).toEqual({
      windowMinutes: 30,
      cron: null,
      timezone: null,
      priorityThreshold: 4,
      titleLimit: 20,
    });
    wrapper.unmount();
    document.body.innerHTML = '';

    stored = {
      windowMinutes: 45,
      cron: null,
      timezone: null,
      priorityThreshold: 5,
      titleLimit: 20,
    };
    const again = mountWithApp(DigestDialog, {
      props: { open: true, source: { kind: 'template', id: 3, name: 'backups' } },
    });
    await settle();
    click('digest-save');
    await settle();
    expect(document.querySelector('[data-testid="digest-error"]')?.textContent).toContain(
      'cron: is not valid',
    );
    again.wrapper.unmount();
  });

  it('turning it off deletes the rule of a task', async () => {
    const { calls } = installFakeApi({
      'GET /tasks/:id/digest': () =>
        ok({
          rule: {
            windowMinutes: 5,
            cron: null,
            timezone: null,
            priorityThreshold: 5,
            titleLimit: 20,
          },
        }),
      'DELETE /tasks/:id/digest': () => ok(null),
    });
    const { wrapper } = mountWithApp(
      DigestDialog,
      { props: { open: true, source: { kind: 'task', id: 8, name: 'jobs' } } },
      createContext('zh-CN'),
    );
    await settle();
    expect(document.querySelector('[data-testid="digest-dialog"]')?.textContent).toContain(
      'jobs 的汇总',
    );
    click('digest-enabled');
    await settle();
    click('digest-save');
    await settle();
    expect(calls.map((c) => `${c.method} ${c.path}`)).toContain('DELETE /tasks/8/digest');
    wrapper.unmount();
  });
});

describe("an instance's digest", () => {
  it('saves a fixed window on the instance', async () => {
    const { calls } = installFakeApi({
      'GET /instances/:id/digest': () => ok({ rule: null }),
      'PUT /instances/:id/digest': (req) => ok({ rule: req.body }),
    });
    const { wrapper } = mountWithApp(DigestDialog, {
      props: { open: true, source: { kind: 'instance', id: 5, name: 'ops-robot' } },
    });
    await settle();
    click('digest-enabled');
    await settle();
    click('digest-save');
    await settle();
    const put = calls.find((c) => c.method === 'PUT');
    expect(put?.path).toBe('/instances/5/digest');
    expect(put?.body).toMatchObject({ windowMinutes: 60, cron: null });
    wrapper.unmount();
  });
});

const send = (over: Record<string, unknown>) => ({
  id: 7,
  api: 'v2',
  taskId: null,
  templateId: 2,
  sourceName: 'backups',
  scheduleId: null,
  title: 'backup 1',
  status: 'collected',
  lastError: null,
  warnings: [],
  deliveryCount: 0,
  credential: 'token',
  sentCount: 0,
  failedCount: 0,
  priority: null,
  dedupKey: null,
  suppressedBy: null,
  suppressedCount: 0,
  createdAt: '2026-11-26T08:00:00.000Z',
  updatedAt: '2026-11-26T08:00:00.000Z',
  scheduleName: null,
  text: 'x',
  html: null,
  markdown: null,
  url: null,
  request: {},
  deliveries: [],
  attachments: [],
  collectedInto: null,
  digestOf: null,
  ...over,
});

describe('digests in the send log', () => {
  it('links a collected send to its digest, and a digest lists its sends', async () => {
    installFakeApi({
      'GET /logs/:id': (req) =>
        req.path === '/logs/7'
          ? ok(
              send({
                collectedInto: {
                  digestId: 1,
                  until: '2026-11-26T08:10:00.000Z',
                  digestSendId: 60,
                },
              }),
            )
          : ok(
              send({
                id: 60,
                title: 'Digest: 2 messages from backups',
                status: 'sent',
                digestOf: [
                  { id: 7, title: 'backup 1', createdAt: '2026-11-26T08:00:00.000Z' },
                  { id: 8, title: 'backup 2', createdAt: '2026-11-26T08:01:00.000Z' },
                ],
              }),
            ),
    });
    const collected = mountWithApp(LogDetailDrawer, { props: { sendId: 7 } }, createContext());
    await settle();
    const into = document.querySelector('[data-testid="log-collected-into"]');
    expect(into?.textContent).toContain('Delivered in digest #60');
    expect(into?.querySelector('a')?.getAttribute('href')).toBe('/logs/60');
    collected.wrapper.unmount();
    document.body.innerHTML = '';

    const digest = mountWithApp(LogDetailDrawer, { props: { sendId: 60 } }, createContext('zh-CN'));
    await settle();
    expect(document.body.textContent).toContain('这条汇总包含 2 条发送');
    const links = [...document.querySelectorAll('[data-testid="log-digest-of"] a')];
    expect(links.map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['backup 1', '/logs/7'],
      ['backup 2', '/logs/8'],
    ]);
    digest.wrapper.unmount();
  });
});
