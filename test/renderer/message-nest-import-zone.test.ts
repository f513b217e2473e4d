import type { VueWrapper } from '@vue/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';

import MessageNestImport from '../../renderer/src/components/MessageNestImport.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const counts = { created: 0, alreadyImported: 0, skipped: 0 };

/** The report of an import that made two schedules: one zone chosen, one from its expression. */
const report = (zone: string, source: 'option' | 'default') => ({
  source: 'the uploaded file',
  dryRun: true,
  tablePrefix: 'message_',
  counts: {
    channels: counts,
    tasks: counts,
    templates: counts,
    instances: counts,
    schedules: { ...counts, created: 2 },
    hostedMessages: counts,
    logs: counts,
  },
  skipped: [],
  scheduleZones: [
    { id: 'CM0000000001', name: 'Morning report', timeZone: zone, source },
    { id: 'CM0000000002', name: 'Berlin digest', timeZone: 'Europe/Berlin', source: 'cron' },
  ],
  notes: [],
});

async function pickFile(wrapper: VueWrapper) {
  const input = wrapper.get<HTMLInputElement>(
    '[data-testid="mn-import-upload"] input[type="file"]',
  );
  const file = new File([new Uint8Array([1, 2, 3])], 'database.db');
  Object.defineProperty(input.element, 'files', { value: [file], configurable: true });
  await input.trigger('change');
  await settle();
}

/** Picks a zone as a person does: opens the list, types to filter it, clicks the zone. */
async function pickZone(zone: string) {
  const select = document.querySelector('[data-testid="mn-import-zone"]')!.closest('.el-select')!;
  select.querySelector<HTMLElement>('.el-select__wrapper')!.click();
  await settle();
  const filter = select.querySelector<HTMLInputElement>('input')!;
  filter.value = zone;
  filter.dispatchEvent(new Event('input'));
  await settle();
  [...document.querySelectorAll<HTMLElement>('.el-select-dropdown__item')]
    .find((el) => el.textContent?.trim() === zone)!
    .click();
  await settle();
}

function mountImport(locale: 'en' | 'zh-CN' = 'en') {
  const api = installFakeApi({
    'POST /import/message-nest': (req) => {
      const zone = req.query.get('timeZone');
      return ok(report(zone ?? 'Asia/Shanghai', zone ? 'option' : 'default'));
    },
  });
  const { wrapper } = mountWithApp(MessageNestImport, {}, createContext(locale));
  return { wrapper, api };
}

const zoneCells = (wrapper: VueWrapper, id: string) =>
  wrapper.findAll(`[data-testid="${id}"]`).map((c) => c.text());

describe('Settings → Import from Message Nest: the schedules’ zone', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  it('imports in Message Nest’s zone (Asia/Shanghai) unless another is picked, and shows each schedule’s', async () => {
    const { wrapper, api } = mountImport();
    expect(wrapper.get('[data-testid="mn-import-zone-help"]').text()).toContain(
      'The zone Message Nest ran in (Asia/Shanghai in its Docker image)',
    );
    await pickFile(wrapper);
    await wrapper.get('[data-testid="mn-import-preview"]').trigger('click');
    await settle();
    const sent = () => api.calls.filter((c) => c.path === '/import/message-nest').at(-1)!;
    // Left as it is, the server's default applies, and its report says so.
    expect(sent().query.get('timeZone')).toBeNull();
    expect(zoneCells(wrapper, 'mn-import-zone-name')).toEqual(['Asia/Shanghai', 'Europe/Berlin']);
    expect(zoneCells(wrapper, 'mn-import-zone-source')[0]).toBe('Message Nest’s default zone');

    await pickZone('Europe/Berlin');
    await wrapper.get('[data-testid="mn-import-preview"]').trigger('click');
    await settle();
    expect(sent().query.get('timeZone')).toBe('Europe/Berlin');
    expect(wrapper.text()).toContain('Schedule time zones');
    expect(zoneCells(wrapper, 'mn-import-zone-source')).toEqual([
      'the zone chosen above',
      'named in its Message Nest expression (CRON_TZ=)',
    ]);
  });

  it('says why in Chinese', async () => {
    const { wrapper } = mountImport('zh-CN');
    await pickFile(wrapper);
    await pickZone('UTC');
    await wrapper.get('[data-testid="mn-import-preview"]').trigger('click');
    await settle();
    expect(wrapper.text()).toContain('定时消息的时区');
    expect(zoneCells(wrapper, 'mn-import-zone-source')).toEqual([
      '上面选择的时区',
      '在 Message Nest 表达式中写明（CRON_TZ=）',
    ]);
  });
});
