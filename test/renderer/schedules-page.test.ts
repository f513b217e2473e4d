import { afterEach, describe, expect, it, vi } from 'vitest';

import { formatTime } from '../../renderer/src/lib/format';
import SchedulesPage from '../../renderer/src/pages/SchedulesPage.vue';
import { useLiveStore } from '../../renderer/src/stores/live-store';
import { fail, installFakeApi, ok, type FakeRequest } from './helpers/fake-api';
import { installFakeEventSource } from './helpers/fake-event-source';
import { createContext, mountWithApp, settle } from './helpers/mount';

const schedule = (over: Record<string, unknown> = {}) => ({
  id: 1,
  name: 'Morning report',
  taskId: 3,
  templateId: null,
  sourceName: 'reports',
  cron: '0 9 * * 1-5',
  runAt: null,
  timezone: 'Europe/Berlin',
  title: 'Good morning',
  text: 'All systems go',
  html: null,
  markdown: null,
  url: null,
  atMobiles: [],
  atUserIds: [],
  atAll: false,
  recipients: [],
  placeholders: {},
  enabled: true,
  catchUp: 'once',
  nextRunAt: '2026-11-23T08:00:00.000Z',
  lastRunAt: '2026-11-20T08:00:00.000Z',
  lastSendId: 12,
  lastError: null,
  createdAt: '2026-11-01T08:00:00.000Z',
  updatedAt: '2026-11-01T08:00:00.000Z',
  ...over,
});

/** Text as a browser lays it out: runs of white space read as one space. */
const spaced = (text: string) => text.replace(/\s+/g, ' ').trim();

const page = (items: unknown[]) => ok({ items, total: items.length, page: 1, pageSize: 20 });

/** A stand-in for the preview endpoint: five runs for "0 9 * * 1-5", a 400 otherwise. */
function preview(req: FakeRequest) {
  const cron = req.query.get('cron');
  if (cron !== '0 9 * * 1-5') return fail(400, `cron: "${cron}" is not valid: has 3 fields`);
  return ok({
    cron,
    timezone: req.query.get('timezone'),
    runs: [23, 24, 25, 26, 27].map((d) => `2026-11-${d}T08:00:00.000Z`),
  });
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('SchedulesPage', () => {
  it('SchedulesPage lists schedules with their expression and a link to the last run in the log', async () => {
    installFakeApi({
      'GET /schedules': () =>
        page([
          schedule(),
          schedule({
            id: 2,
            name: 'Launch',
            cron: null,
            runAt: '2026-12-24T17:00:00.000Z',
            lastSendId: null,
            lastRunAt: null,
            lastError: 'task 3 of this schedule no longer exists',
            sourceName: null,
          }),
        ]),
    });
    const { wrapper } = mountWithApp(SchedulesPage);
    await settle();
    const rows = wrapper.findAll('.el-table__body-wrapper tr');
    expect(rows).toHaveLength(2);
    // In words, in the schedule's zone; the expression on hover.
    const when = rows[0].get('[data-testid="schedule-when"]');
    expect(spaced(when.text())).toBe('Weekdays 09:00 Europe/Berlin');
    expect(when.attributes('data-cron')).toBe('0 9 * * 1-5');
    expect(rows[0].find('[data-testid="schedule-cron-cell"]').exists()).toBe(false);
    // The one-time run reads in its zone too: 17:00 UTC is 18:00 in Berlin.
    expect(spaced(rows[1].get('[data-testid="schedule-when"]').text())).toMatch(
      /^Once, Dec 24, 2026, 6:00\sPM Europe\/Berlin$/,
    );
    expect(rows[0].get('[data-testid="schedule-last-send"]').attributes('href')).toBe('/logs/12');
    expect(rows[1].text()).toContain('(deleted)');
    expect(rows[1].get('[data-testid="schedule-last-error"]').text()).toContain('no longer exists');
    wrapper.unmount();
  });

  it('SchedulesPage words each expression in the list’s language, and shows the cron it cannot word', async () => {
    installFakeApi({
      'GET /schedules': () =>
        page([
          schedule({ timezone: 'Asia/Shanghai' }),
          schedule({ id: 2, cron: '*/5 * * * *', timezone: 'UTC' }),
          schedule({ id: 3, cron: '0 9 1 * 1', timezone: 'UTC' }),
        ]),
    });
    const { wrapper } = mountWithApp(SchedulesPage, {}, createContext('zh-CN'));
    await settle();
    const whens = wrapper.findAll('[data-testid="schedule-when"]').map((w) => spaced(w.text()));
    expect(whens).toEqual(['工作日 09:00 Asia/Shanghai', '每 5 分钟 UTC', '0 9 1 * 1 UTC']);
    expect(wrapper.findAll('[data-testid="schedule-cron-cell"]').map((c) => c.text())).toEqual([
      '0 9 1 * 1',
    ]);
    wrapper.unmount();
  });

  it('SchedulesPage starts a new schedule on a template, picks the only one, and labels the presets', async () => {
    installFakeApi({
      'GET /schedules': () => page([]),
      'GET /schedules/preview': preview,
      'GET /tasks': () => page([{ id: 3, name: 'reports', instanceCount: 1 }]),
      'GET /templates': () => page([{ id: 8, name: 'Nightly', placeholders: [], enabled: true }]),
    });
    const { wrapper } = mountWithApp(SchedulesPage);
    await settle();
    await wrapper.get('[data-testid="schedule-create"]').trigger('click');
    await settle();
    const checked = document.querySelector('[data-testid="schedule-source"] .is-active');
    expect(checked?.textContent?.trim()).toBe('Template (V2)');
    expect(document.querySelector('[data-testid="schedule-task"]')).toBeNull();
    const picked = document.querySelector('[data-testid="schedule-template"]');
    expect(picked?.textContent).toContain('Nightly');

    const presets = [
      ...document.querySelectorAll<HTMLElement>('[data-testid^="schedule-preset-"]'),
    ];
    expect(presets.map((b) => b.textContent?.trim())).toEqual([
      'Every minute',
      'Every 5 minutes',
      'Every hour at :00',
      'Daily 02:00',
      'Mondays 02:00',
      'Monthly on day 1 at 02:00',
    ]);
    presets[1].click();
    await settle();
    expect(
      document.querySelector<HTMLInputElement>('input[data-testid="schedule-cron"]')!.value,
    ).toBe('*/5 * * * *');
    expect(presets[1].dataset.cron).toBe('*/5 * * * *');
    wrapper.unmount();
  });

  it('SchedulesPage leaves the template picker empty when there are several, and starts on tasks when there is no template', async () => {
    let templates: unknown[] = [
      { id: 8, name: 'Nightly', placeholders: [], enabled: true },
      { id: 9, name: 'Weekly', placeholders: [], enabled: true },
    ];
    installFakeApi({
      'GET /schedules': () => page([]),
      'GET /schedules/preview': preview,
      'GET /tasks': () => page([{ id: 3, name: 'reports', instanceCount: 1 }]),
      'GET /templates': () => page(templates),
    });
    const { wrapper } = mountWithApp(SchedulesPage);
    await settle();
    await wrapper.get('[data-testid="schedule-create"]').trigger('click');
    await settle();
    const active = () =>
      document.querySelector('[data-testid="schedule-source"] .is-active')?.textContent?.trim();
    expect(active()).toBe('Template (V2)');
    expect(document.querySelector('[data-testid="schedule-template"]')?.textContent).not.toContain(
      'Nightly',
    );
    wrapper.unmount();
    document.body.innerHTML = '';
    templates = [];
    const again = mountWithApp(SchedulesPage).wrapper;
    await settle();
    await again.get('[data-testid="schedule-create"]').trigger('click');
    await settle();
    expect(active()).toBe('Task (V1)');
    again.unmount();
  });

  it('SchedulesPage switches a schedule off and puts the switch back when the server refuses', async () => {
    let refuse = false;
    const { calls } = installFakeApi({
      'GET /schedules': () => page([schedule()]),
      'PATCH /schedules/:id': (req) =>
        refuse
          ? fail(400, 'runAt: 2026-11-01T00:00:00.000Z has passed; pick a later time')
          : ok(schedule(req.body as Record<string, unknown>)),
    });
    const { wrapper } = mountWithApp(SchedulesPage);
    await settle();
    const toggle = () => wrapper.get('[data-testid="schedule-toggle"]');
    await toggle().trigger('click');
    await settle();
    expect(calls.find((c) => c.method === 'PATCH')).toMatchObject({
      path: '/schedules/1',
      body: { enabled: false },
    });
    expect(toggle().classes()).not.toContain('is-checked');
    refuse = true;
    await toggle().trigger('click');
    await settle();
    expect(toggle().classes()).not.toContain('is-checked');
    expect(document.body.textContent).toContain('has passed; pick a later time');
    wrapper.unmount();
  });

  it('SchedulesPage runs a schedule now and links the new send', async () => {
    const { calls } = installFakeApi({
      'GET /schedules': () => page([schedule()]),
      'POST /schedules/:id/run': () =>
        ok({
          sendId: 40,
          schedule: schedule({ lastSendId: 40, lastRunAt: '2026-11-22T08:00:00Z' }),
        }),
    });
    const { wrapper } = mountWithApp(SchedulesPage);
    await settle();
    await wrapper.get('[data-testid="schedule-run"]').trigger('click');
    await settle();
    expect(calls.some((c) => c.method === 'POST' && c.path === '/schedules/1/run')).toBe(true);
    expect(wrapper.get('[data-testid="schedule-last-send"]').attributes('href')).toBe('/logs/40');
    expect(document.body.textContent).toContain('send #40 is in the log');
    wrapper.unmount();
  });

  it('SchedulesPage shows a run announced on the event stream without a reload, at most once a second', async () => {
    const Source = installFakeEventSource();
    let current = schedule();
    const { calls } = installFakeApi({ 'GET /schedules': () => page([current]) });
    const { wrapper, pinia } = mountWithApp(SchedulesPage);
    const stop = useLiveStore(pinia).connect();
    Source.instances[0].open();
    await settle();
    const lists = () => calls.filter((c) => c.path === '/schedules').length;
    const row = () => wrapper.get('.el-table__body-wrapper tr');
    expect(lists()).toBe(1);
    expect(row().text()).toContain('#12');

    // The scheduler ran it: the next run moved a day on, and the send is the newest.
    current = schedule({
      nextRunAt: '2026-11-24T08:00:00.000Z',
      lastRunAt: '2026-11-23T08:00:00.000Z',
      lastSendId: 13,
    });
    vi.useFakeTimers();
    Source.instances[0].emit('schedule', { id: 1 });
    Source.instances[0].emit('schedule', { id: 1 });
    await vi.advanceTimersByTimeAsync(999);
    expect(lists()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    vi.useRealTimers();
    await settle();
    expect(lists()).toBe(2);
    expect(row().get('[data-testid="schedule-last-send"]').attributes('href')).toBe('/logs/13');
    expect(row().text()).toContain(formatTime('2026-11-24T08:00:00.000Z', 'en'));
    expect(row().text()).toContain(formatTime('2026-11-23T08:00:00.000Z', 'en'));

    // Back after a drop, runs may have been missed: the list is read again.
    Source.instances[0].drop();
    Source.instances[0].open();
    await new Promise((r) => setTimeout(r, 1_050));
    expect(lists()).toBe(3);
    stop();
    wrapper.unmount();
  });

  it('SchedulesPage previews the next five runs as the expression is typed, and shows what is wrong', async () => {
    const { calls } = installFakeApi({
      'GET /schedules': () => page([schedule()]),
      'GET /schedules/preview': preview,
      'GET /tasks': () => page([{ id: 3, name: 'reports', instanceCount: 1 }]),
      'GET /templates': () => page([]),
    });
    const { wrapper } = mountWithApp(SchedulesPage);
    await settle();
    await wrapper.get('[data-testid="schedule-edit"]').trigger('click');
    await settle();
    const runs = () => document.querySelectorAll('[data-testid="schedule-preview"] li');
    await vi.waitFor(() => expect(runs()).toHaveLength(5));
    const previews = () => calls.filter((c) => c.path === '/schedules/preview');
    expect(previews().at(-1)!.query.get('timezone')).toBe('Europe/Berlin');

    const input = document.querySelector<HTMLInputElement>('input[data-testid="schedule-cron"]')!;
    const before = previews().length;
    for (const typed of ['0', '0 9', '0 9 *']) {
      input.value = typed;
      input.dispatchEvent(new Event('input'));
    }
    await vi.waitFor(() =>
      expect(document.querySelector('[data-testid="schedule-preview-error"]')?.textContent).toBe(
        'cron: "0 9 *" is not valid: has 3 fields',
      ),
    );
    // One request for the pause after typing, not one per keystroke.
    expect(
      previews()
        .slice(before)
        .map((c) => c.query.get('cron')),
    ).toEqual(['0 9 *']);
    expect(runs()).toHaveLength(0);
    wrapper.unmount();
  });

  it('SchedulesPage saves an edit with the API field names and shows a refusal in the dialog', async () => {
    let answer: 'ok' | 'refuse' = 'refuse';
    const { calls } = installFakeApi({
      'GET /schedules': () => page([schedule()]),
      'GET /schedules/preview': preview,
      'GET /tasks': () => page([{ id: 3, name: 'reports', instanceCount: 1 }]),
      'GET /templates': () => page([]),
      'PUT /schedules/:id': (req) =>
        answer === 'refuse'
          ? fail(400, 'title: is required')
          : ok(schedule(req.body as Record<string, unknown>)),
    });
    const { wrapper } = mountWithApp(SchedulesPage);
    await settle();
    await wrapper.get('[data-testid="schedule-edit"]').trigger('click');
    await settle();
    const save = document.querySelector<HTMLButtonElement>('[data-testid="schedule-save"]')!;
    save.click();
    await settle();
    expect(document.querySelector('[data-testid="schedule-error"]')?.textContent).toContain(
      'title: is required',
    );
    answer = 'ok';
    save.click();
    await settle();
    const put = calls.filter((c) => c.method === 'PUT').at(-1)!;
    expect(put.path).toBe('/schedules/1');
    expect(put.body).toEqual({
      name: 'Morning report',
      taskId: 3,
      templateId: null,
      cron: '0 9 * * 1-5',
      runAt: null,
      timezone: 'Europe/Berlin',
      title: 'Good morning',
      text: 'All systems go',
      html: null,
      markdown: null,
      url: null,
      atMobiles: [],
      atUserIds: [],
      atAll: false,
      recipients: [],
      placeholders: {},
      enabled: true,
      catchUp: 'once',
    });
    wrapper.unmount();
  });
});
