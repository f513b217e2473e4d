import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { Channel, Instance } from '@contract';

import GettingStartedCard from '../../renderer/src/components/GettingStartedCard.vue';
import InstancesEditor from '../../renderer/src/components/InstancesEditor.vue';
import ConsoleLayout from '../../renderer/src/layouts/ConsoleLayout.vue';
import { buildExample } from '../../renderer/src/lib/examples';
import { gettingStartedSteps } from '../../renderer/src/lib/getting-started';
import { FakeEventSource } from './helpers/fake-event-source';
import { installFakeApi, ok, type FakeHandler } from './helpers/fake-api';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

const channel = (id: number, usedBy: Channel['usedBy'] = []) =>
  ({ id, name: `ch-${id}`, type: 'hosted', config: {}, usedBy }) as unknown as Channel;
const logs = (total: number) => ok({ items: [], total, page: 1, pageSize: 1 });

beforeEach(() => {
  vi.stubGlobal('EventSource', FakeEventSource);
  localStorage.clear();
});
afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('gettingStartedSteps()', () => {
  it('ticks each step off from what exists', () => {
    const done = (facts: Parameters<typeof gettingStartedSteps>[0]) =>
      gettingStartedSteps(facts).map((s) => s.done);
    expect(done({ channels: [], sends: 0 })).toEqual([false, false, false]);
    expect(done({ channels: [channel(1)], sends: 0 })).toEqual([true, false, false]);
    // A task's instance is not the template step.
    expect(
      done({ channels: [channel(1, [{ kind: 'task', id: 2, name: 't' }])], sends: 0 }),
    ).toEqual([true, false, false]);
    const withTemplate = [channel(1, [{ kind: 'template', id: 5, name: 'Nightly' }])];
    expect(done({ channels: withTemplate, sends: 0 })).toEqual([true, true, false]);
    expect(done({ channels: withTemplate, sends: 3 })).toEqual([true, true, true]);
  });

  it('links each step to its place, the last to the template’s Send API', () => {
    const steps = gettingStartedSteps({
      channels: [channel(1, [{ kind: 'template', id: 5, name: 'Nightly' }])],
      sends: 0,
    });
    expect(steps.map((s) => s.to)).toEqual([
      { name: 'channels' },
      { name: 'templates' },
      { name: 'templates', query: { sendApi: '5' } },
    ]);
    expect(gettingStartedSteps({ channels: [], sends: 0 })[2]!.to).toEqual({ name: 'templates' });
  });
});

describe('GettingStartedCard', () => {
  async function mountCard(
    routes: Record<string, FakeHandler>,
    role: 'admin' | 'editor' | 'viewer' = 'admin',
    locale: 'en' | 'zh-CN' = 'en',
  ) {
    const api = installFakeApi(routes);
    const { wrapper } = mountWithApp(GettingStartedCard, {}, signedInContext(role, locale));
    await settle();
    return { wrapper, api };
  }
  const step = (key: string) => document.querySelector(`[data-testid="getting-started-${key}"]`);

  it('shows the three steps on an empty Herald, none done, each linking to its page', async () => {
    await mountCard({
      'GET /channels': () => ok({ items: [], total: 0, page: 1, pageSize: 0 }),
      'GET /logs': () => logs(0),
    });
    expect(step('channel')?.textContent).toContain('Add a channel');
    expect(step('template')?.textContent).toContain('Make a template with an instance');
    expect(step('send')?.textContent).toContain('Send your first message');
    for (const key of ['channel', 'template', 'send'])
      expect(step(key)?.getAttribute('data-done')).toBe('false');
    const href = (key: string) =>
      document.querySelector(`[data-testid="getting-started-${key}-link"]`)?.getAttribute('href');
    expect(href('channel')).toBe('/channels');
    expect(href('template')).toBe('/templates');
    expect(document.body.textContent).toContain('0 of 3 done');
  });

  it('ticks off what exists and links the last step to that template’s Send API', async () => {
    const { api } = await mountCard(
      {
        'GET /channels': () =>
          ok({
            items: [channel(1, [{ kind: 'template', id: 7, name: 'Nightly' }])],
            total: 1,
            page: 1,
            pageSize: 1,
          }),
        'GET /logs': () => logs(0),
      },
      'editor',
      'zh-CN',
    );
    expect(step('channel')?.getAttribute('data-done')).toBe('true');
    expect(step('template')?.getAttribute('data-done')).toBe('true');
    expect(step('send')?.getAttribute('data-done')).toBe('false');
    expect(document.body.textContent).toContain('已完成 2/3');
    expect(
      document.querySelector('[data-testid="getting-started-send-link"]')?.getAttribute('href'),
    ).toBe('/templates?sendApi=7');
    expect(api.calls.find((c) => c.path === '/logs')?.query.get('pageSize')).toBe('1');
  });

  it('goes away once all three are done', async () => {
    await mountCard({
      'GET /channels': () =>
        ok({
          items: [channel(1, [{ kind: 'template', id: 7, name: 'Nightly' }])],
          total: 1,
          page: 1,
          pageSize: 1,
        }),
      'GET /logs': () => logs(1),
    });
    expect(document.querySelector('[data-testid="getting-started"]')).toBeNull();
  });

  it('can be hidden, and stays hidden for that person', async () => {
    const routes = {
      'GET /channels': () => ok({ items: [], total: 0, page: 1, pageSize: 0 }),
      'GET /logs': () => logs(0),
    };
    const { wrapper } = await mountCard(routes);
    document.querySelector<HTMLElement>('[data-testid="getting-started-dismiss"]')!.click();
    await settle();
    expect(document.querySelector('[data-testid="getting-started"]')).toBeNull();
    wrapper.unmount();
    const again = await mountCard(routes);
    expect(document.querySelector('[data-testid="getting-started"]')).toBeNull();
    // It asked for nothing: a hidden card loads nothing.
    expect(again.api.calls).toEqual([]);
  });

  it('is not shown to a viewer, who cannot take the steps', async () => {
    const { api } = await mountCard({}, 'viewer');
    expect(document.querySelector('[data-testid="getting-started"]')).toBeNull();
    expect(api.calls).toEqual([]);
  });
});

describe('the first instance of a template', () => {
  const instance = { id: 11, channelId: 1, channel: { id: 1, name: 'inbox', type: 'hosted' } };

  it('shows its token and a ready curl line once saved, from the Send API’s own examples', async () => {
    const saved: Instance[] = [];
    installFakeApi({
      'GET /templates/3/instances': () => ok(saved),
      'GET /channels': () => ok({ items: [channel(1)], total: 1, page: 1, pageSize: 1 }),
      'GET /channel-types': () => ok([]),
      'GET /templates/3/token': () => ok({ token: 'tpl-token-3' }),
      'GET /templates/3': () =>
        ok({
          id: 3,
          name: 'Nightly',
          placeholders: [{ key: 'host', label: 'Host', default: 'db-1' }],
          instances: saved,
        }),
    });
    const { wrapper } = mountWithApp(
      InstancesEditor,
      { props: { source: { kind: 'template', id: 3 } } },
      signedInContext('editor'),
    );
    await settle();
    expect(wrapper.find('[data-testid="first-send-panel"]').exists()).toBe(false);

    saved.push(instance as unknown as Instance);
    wrapper.findComponent({ name: 'InstanceDialog' }).vm.$emit('saved');
    await vi.waitFor(() =>
      expect(wrapper.find('[data-testid="first-send-curl"]').text()).not.toBe(''),
    );
    const token = wrapper.get('input[data-testid="first-send-token"]').element as HTMLInputElement;
    expect(token.value).toBe('tpl-token-3');
    expect(wrapper.get('[data-testid="first-send-panel"]').text()).toContain('"Nightly"');
    expect(wrapper.get('[data-testid="first-send-curl"]').text()).toBe(
      buildExample('curl', {
        origin: window.location.origin,
        api: 'v2',
        token: 'tpl-token-3',
        placeholders: { host: 'db-1' },
      }),
    );
  });

  it('does not show it when a second instance is saved', async () => {
    const saved = [instance as unknown as Instance];
    installFakeApi({
      'GET /templates/3/instances': () => ok(saved),
      'GET /channels': () => ok({ items: [channel(1)], total: 1, page: 1, pageSize: 1 }),
      'GET /channel-types': () => ok([]),
    });
    const { wrapper } = mountWithApp(
      InstancesEditor,
      { props: { source: { kind: 'template', id: 3 } } },
      signedInContext('editor'),
    );
    await settle();
    saved.push({ ...instance, id: 12 } as unknown as Instance);
    wrapper.findComponent({ name: 'InstanceDialog' }).vm.$emit('saved');
    await settle();
    expect(wrapper.find('[data-testid="first-send-panel"]').exists()).toBe(false);
  });
});

describe('the sidebar', () => {
  it('lists Templates (V2) above Tasks (V1)', async () => {
    installFakeApi({
      'GET /messages': () => ok({ items: [], total: 0, page: 1, pageSize: 1, unreadCount: 0 }),
    });
    const { wrapper } = mountWithApp(
      ConsoleLayout,
      { global: { stubs: { 'router-view': true } } },
      signedInContext('editor'),
    );
    await settle();
    const items = wrapper.findAll('[data-testid^="nav-"]').map((a) => a.attributes('data-testid'));
    expect(items.indexOf('nav-templates')).toBeGreaterThan(-1);
    expect(items.indexOf('nav-templates')).toBeLessThan(items.indexOf('nav-tasks'));
    expect(wrapper.get('[data-testid="nav-templates"]').text()).toContain('Templates (V2)');
  });
});
