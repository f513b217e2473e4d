import { afterEach, describe, expect, it, vi } from 'vitest';

import QuietHoursEditor from '../../renderer/src/components/QuietHoursEditor.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const rule = {
  id: 7,
  ownerType: 'channel',
  ownerId: 3,
  timezone: 'Europe/Berlin',
  weekdays: [1, 2, 3, 4, 5],
  start: '22:00',
  end: '07:00',
  action: 'hold',
  bypassPriority: 5,
  enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

afterEach(() => {
  document.body.innerHTML = '';
  vi.unstubAllGlobals();
});

const query = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);

async function mountEditor(locale: 'en' | 'zh-CN', collapsed = false) {
  const view = mountWithApp(
    QuietHoursEditor,
    { props: { ownerType: 'channel', ownerId: 3, collapsed } },
    createContext(locale),
  );
  await settle();
  return view;
}

describe('QuietHoursEditor', () => {
  it('lists an owner’s rules and says what a message sent now would meet, in both languages', async () => {
    const { calls } = installFakeApi({
      'GET /quiet-hours': () => ok({ items: [rule] }),
      'GET /quiet-hours/preview': () =>
        ok({ applies: true, action: 'hold', until: '2026-01-14T06:00:00.000Z', ruleId: 7 }),
    });
    await mountEditor('en');
    expect(calls[0]).toMatchObject({ method: 'GET', path: '/quiet-hours' });
    expect(query('quiet-rule')?.textContent).toContain('Mon Tue Wed Thu Fri 22:00–07:00');
    expect(query('quiet-rule')?.textContent).toContain('Hold');
    expect(query('quiet-preview')?.textContent).toContain('would be held until');

    document.body.innerHTML = '';
    await mountEditor('zh-CN');
    expect(query('quiet-rule')?.textContent).toContain('周一 周二');
    expect(query('quiet-rule')?.textContent).toContain('暂缓');
    expect(query('quiet-preview')?.textContent).toContain('暂缓到');
  });

  it('on a dialog it waits to be opened before it asks the server', async () => {
    const { calls } = installFakeApi({
      'GET /quiet-hours': () => ok({ items: [] }),
      'GET /quiet-hours/preview': () =>
        ok({ applies: false, action: null, until: null, ruleId: null }),
    });
    await mountEditor('en', true);
    expect(calls).toEqual([]);
    query('quiet-open')!.click();
    await settle();
    expect(calls.map((c) => c.path)).toEqual(['/quiet-hours', '/quiet-hours/preview']);
    expect(query('quiet-preview')?.textContent).toContain('goes as usual');
  });

  it('adds a rule with the form’s fields, and shows a refusal under the form', async () => {
    let refuse = true;
    const { calls } = installFakeApi({
      'GET /quiet-hours': () => ok({ items: [] }),
      'GET /quiet-hours/preview': () =>
        ok({ applies: false, action: null, until: null, ruleId: null }),
      'POST /quiet-hours': (req) =>
        refuse
          ? { code: 400, msg: 'end: must be a time of day, HH:MM (00:00 to 23:59)', data: null }
          : ok({ ...rule, ...(req.body as object) }),
    });
    await mountEditor('en');
    query('quiet-add')!.click();
    await settle();
    // Element Plus puts the test id on the native input itself.
    const box = query('quiet-end')!;
    const end = (box instanceof HTMLInputElement ? box : box.querySelector('input'))!;
    end.value = '7';
    end.dispatchEvent(new Event('input'));
    query('quiet-save')!.click();
    await settle();
    expect(query('quiet-error')?.textContent).toContain('end: must be a time of day');
    refuse = false;
    end.value = '07:30';
    end.dispatchEvent(new Event('input'));
    query('quiet-save')!.click();
    await settle();
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts.at(-1)!.body).toMatchObject({
      ownerType: 'channel',
      ownerId: 3,
      start: '22:00',
      end: '07:30',
      action: 'hold',
      bypassPriority: 5,
      weekdays: [1, 2, 3, 4, 5, 6, 0],
    });
    expect(query('quiet-error')).toBeNull();
  });
});
