import { afterEach, describe, expect, it, vi } from 'vitest';

import { markerKeys as serverMarkerKeys } from '../../server/domain/placeholders';
import LogDetailDrawer from '../../renderer/src/components/LogDetailDrawer.vue';
import TemplateEditor from '../../renderer/src/components/TemplateEditor.vue';
import { markerKeys } from '../../renderer/src/lib/placeholder-markers';
import LogsPage from '../../renderer/src/pages/LogsPage.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle, signedInContext } from './helpers/mount';

/*
 * Issue 41 §2, §3 and §9 in the console: placeholder warnings and a retrying send in the log,
 * the credential column only where a Message Nest credential can show, a click on a row opens
 * the send, and the template editor marks markers that are not declared.
 */

const send = (over: Record<string, unknown> = {}) => ({
  id: 7,
  api: 'v2',
  taskId: null,
  templateId: 2,
  sourceName: 'Disk alert',
  scheduleId: null,
  title: 'Disk full',
  status: 'sent',
  lastError: null,
  warnings: [],
  deliveryCount: 1,
  credential: 'token',
  sentCount: 1,
  failedCount: 0,
  priority: null,
  dedupKey: null,
  suppressedBy: null,
  suppressedCount: 0,
  createdAt: '2026-11-26T08:00:00.000Z',
  updatedAt: '2026-11-26T08:00:00.000Z',
  ...over,
});
const page = (items: unknown[], messageNestCredentials = false) =>
  ok({
    items,
    total: items.length,
    page: 1,
    pageSize: 20,
    totalIsCapped: false,
    messageNestCredentials,
  });
const WARNING = {
  kind: 'noValue',
  key: 'host',
  message:
    'placeholder "host" has no value and no default, so {{host}} stays in the message as written',
};
const REFUSED = 'connect ECONNREFUSED 127.0.0.1:9';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

async function logsPage(items: unknown[], messageNestCredentials = false) {
  installFakeApi({
    'GET /logs': () => page(items, messageNestCredentials),
    'GET /logs/:id': () =>
      ok({
        ...send(),
        scheduleName: null,
        text: 'x',
        html: null,
        markdown: null,
        url: null,
        request: {},
        deliveries: [],
      }),
    'GET /tasks': () => page([]),
    'GET /templates': () => page([]),
  });
  // A viewer reads the log too; signed in, so the router lets the page open a send.
  const ctx = signedInContext('viewer');
  await ctx.router.push('/logs');
  const mounted = mountWithApp(LogsPage, {}, ctx);
  await settle();
  return mounted;
}

const headers = (wrapper: { findAll(s: string): Array<{ text(): string }> }) =>
  wrapper.findAll('.el-table__header th').map((th) => th.text());

describe('the send log', () => {
  it('shows a retrying send with its last error, and its placeholder warnings', async () => {
    const { wrapper } = await logsPage([
      send({ id: 9, status: 'retrying', lastError: REFUSED, sentCount: 1, deliveryCount: 2 }),
      send({ id: 8, warnings: [WARNING] }),
    ]);
    const rows = wrapper.findAll('.el-table__body-wrapper tr');
    expect(rows[0].text()).toContain('Waiting to retry');
    expect(rows[0].get('[data-testid="log-last-error"]').text()).toBe(REFUSED);
    expect(rows[0].find('[data-testid="log-warning-count"]').exists()).toBe(false);
    expect(rows[1].get('[data-testid="log-warning-count"]').text()).toBe('Placeholder warnings: 1');
    expect(rows[1].find('[data-testid="log-last-error"]').exists()).toBe(false);
    wrapper.unmount();
  });

  it('offers retrying in the status filter', async () => {
    const { wrapper } = await logsPage([send()]);
    await wrapper.get('[data-testid="logs-status"]').trigger('click');
    await settle();
    const options = [...document.querySelectorAll('.el-select-dropdown__item')].map(
      (o) => o.textContent,
    );
    expect(options).toContain('Waiting to retry');
    wrapper.unmount();
  });

  it('shows the credential column only where a Message Nest credential can appear', async () => {
    const plain = await logsPage([send()]);
    expect(headers(plain.wrapper)).not.toContain('Credential');
    plain.wrapper.unmount();

    // A row sent with one, even once the install stopped accepting them.
    const onPage = await logsPage([send({ credential: 'legacy_token' }), send({ id: 6 })]);
    expect(headers(onPage.wrapper)).toContain('Credential');
    expect(onPage.wrapper.findAll('[data-testid="log-message-nest-credential"]')).toHaveLength(1);
    onPage.wrapper.unmount();

    // The install accepts one: the column stays, whatever this page holds.
    const accepted = await logsPage([send()], true);
    expect(headers(accepted.wrapper)).toContain('Credential');
    accepted.wrapper.unmount();
  });

  it('opens a send with a single click on its row', async () => {
    const { wrapper, router } = await logsPage([send({ id: 7 })]);
    await wrapper.get('.el-table__body-wrapper tr td:nth-child(3)').trigger('click');
    await vi.waitFor(() => expect(router.currentRoute.value.fullPath).toBe('/logs/7'));
    wrapper.unmount();
  });
});

describe('the send detail', () => {
  const detail = (over: Record<string, unknown>) =>
    ok({
      ...send(over),
      scheduleName: null,
      text: 'Disk on {{host}}',
      html: null,
      markdown: null,
      url: null,
      request: {},
      deliveries: [],
    });

  it('lists the warnings in the person’s language and names the last error', async () => {
    installFakeApi({
      'GET /logs/:id': () =>
        detail({
          status: 'retrying',
          lastError: REFUSED,
          warnings: [
            WARNING,
            { kind: 'notDeclared', key: 'hots', message: 'x' },
            { kind: 'markerNotDeclared', key: 'region', message: 'y' },
          ],
        }),
    });
    const en = mountWithApp(LogDetailDrawer, { props: { sendId: 7 } }, createContext());
    await settle();
    const warnings = document.querySelector('[data-testid="log-warnings"]');
    expect(warnings?.textContent).toContain('Sent with placeholder problems (3)');
    expect(
      [...(warnings?.querySelectorAll('li') ?? [])].map((li) => li.textContent?.trim()),
    ).toEqual([
      '"host" has no value and no default, so {{host}} stays in the message as written.',
      'A value was given for "hots", which the template does not declare, so it was not used.',
      '{{region}} is in the template but is not a declared placeholder, so it stays in the message as written.',
    ]);
    expect(document.querySelector('[data-testid="log-summary-error"]')?.textContent).toBe(REFUSED);
    en.wrapper.unmount();
    document.body.innerHTML = '';

    const zh = mountWithApp(LogDetailDrawer, { props: { sendId: 7 } }, createContext('zh-CN'));
    await settle();
    expect(document.querySelector('[data-testid="log-warnings"] li')?.textContent).toContain(
      '“host”既没有值也没有默认值，所以 {{host}} 会按原样留在消息里。',
    );
    zh.wrapper.unmount();
  });

  it('shows no warning block for a clean send', async () => {
    installFakeApi({ 'GET /logs/:id': () => detail({}) });
    const { wrapper } = mountWithApp(LogDetailDrawer, { props: { sendId: 7 } }, createContext());
    await settle();
    expect(document.querySelector('[data-testid="log-drawer"]')?.textContent).toContain(
      'Disk full',
    );
    expect(document.querySelector('[data-testid="log-warnings"]')).toBeNull();
    expect(document.querySelector('[data-testid="log-summary-error"]')).toBeNull();
    wrapper.unmount();
  });
});

describe('the template editor', () => {
  it('marks markers no placeholder declares, and a click declares one', async () => {
    installFakeApi({
      'POST /templates/preview': () => ok({ text: '', html: '', markdown: '' }),
    });
    const { wrapper } = mountWithApp(
      TemplateEditor,
      { props: { open: true, template: null } },
      createContext(),
    );
    await settle();
    const body = document.querySelector<HTMLTextAreaElement>(
      '[data-testid="template-text"] textarea, textarea[data-testid="template-text"]',
    );
    expect(body).not.toBeNull();
    body!.value = 'Disk on {{ hots }} {{repeats}} {{服务名}}';
    body!.dispatchEvent(new Event('input'));
    await settle();
    const marked = () =>
      [...document.querySelectorAll('[data-testid^="template-declare-"]')].map((b) =>
        b.textContent?.trim(),
      );
    // {{repeats}} is every template's: not marked.
    expect(marked()).toEqual(['{{hots}}', '{{服务名}}']);
    expect(document.querySelector('[data-testid="template-undeclared"]')?.textContent).toContain(
      'Not declared, so sent as written',
    );

    document.querySelector<HTMLButtonElement>('[data-testid="template-declare-hots"]')!.click();
    await settle();
    expect(
      document.querySelector<HTMLInputElement>(
        '[data-testid="template-placeholder-key-0"] input, input[data-testid="template-placeholder-key-0"]',
      )?.value,
    ).toBe('hots');
    expect(marked()).toEqual(['{{服务名}}']);
    wrapper.unmount();
  });

  it('reads markers exactly as the server does', () => {
    for (const body of [
      '{{a}} {{ b }} {{c.d}} {{e-f}} {{服务名}} {{ключ}} {{1}}',
      '{{ a b }} {{}} {a} {{{x}}} {{ x}y}} {{\n z \n}}',
      'no markers at all',
    ]) {
      expect(markerKeys(body)).toEqual(serverMarkerKeys(body));
    }
  });
});
