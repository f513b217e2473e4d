import type { VueWrapper } from '@vue/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';

import MessageNestImport from '../../renderer/src/components/MessageNestImport.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const counts = (skipped = 0) => ({ created: 1, alreadyImported: 0, skipped });

/** A report as the server answers it: two rows left out, each with its table and reason. */
const report = (dryRun: boolean) => ({
  source: 'the uploaded file',
  dryRun,
  tablePrefix: 'message_',
  counts: {
    channels: counts(1),
    tasks: counts(),
    templates: counts(),
    instances: counts(1),
    schedules: counts(),
    hostedMessages: counts(),
    logs: counts(),
  },
  skipped: [
    {
      kind: 'channels',
      table: 'message_send_ways',
      id: 'WYbarkenc001',
      name: 'Bark encrypted',
      reason: 'Bark: it encrypts pushes (key/iv)',
    },
    {
      kind: 'instances',
      table: 'message_send_tasks_ins',
      id: 'INorphan0001',
      name: '',
      reason: 'its task TKdeleted001 no longer exists in Message Nest',
    },
  ],
  scheduleZones: [],
  notes: [],
});

/** Picks a file as the browser's file chooser does, through Element Plus's upload. */
async function pickFile(wrapper: VueWrapper, ...files: File[]) {
  const input = wrapper.get<HTMLInputElement>(
    '[data-testid="mn-import-upload"] input[type="file"]',
  );
  Object.defineProperty(input.element, 'files', { value: files, configurable: true });
  await input.trigger('change');
  await settle();
}

async function previewWith(locale: 'en' | 'zh-CN') {
  const api = installFakeApi({
    'POST /import/message-nest': (req) => ok(report(req.query.get('dryRun') === '1')),
  });
  const { wrapper } = mountWithApp(MessageNestImport, {}, createContext(locale));
  await pickFile(wrapper, new File([new Uint8Array([1, 2, 3])], 'database.db'));
  await wrapper.get('[data-testid="mn-import-preview"]').trigger('click');
  await settle();
  return { wrapper, api };
}

describe('Settings → Import from Message Nest', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  it('lists each skipped row with its Message Nest table, id, name and reason', async () => {
    const { wrapper, api } = await previewWith('en');
    expect(api.calls.find((c) => c.path === '/import/message-nest')?.query.get('dryRun')).toBe('1');
    const skipped = wrapper.get('[data-testid="mn-import-skipped"]');
    expect(wrapper.text()).toContain('Skipped rows (2)');
    expect(skipped.text()).toContain('Message Nest table');
    const cells = (id: string) => skipped.findAll(`[data-testid="${id}"]`).map((c) => c.text());
    expect(cells('mn-import-skipped-table')).toEqual([
      'message_send_ways',
      'message_send_tasks_ins',
    ]);
    expect(cells('mn-import-skipped-id')).toEqual(['WYbarkenc001', 'INorphan0001']);
    // A row without a name shows its id alone.
    expect(cells('mn-import-skipped-name')).toEqual(['Bark encrypted']);
    expect(cells('mn-import-skipped-reason')).toEqual([
      'Bark: it encrypts pushes (key/iv)',
      'its task TKdeleted001 no longer exists in Message Nest',
    ]);
  });

  it('picks the file with Element Plus’s upload: a labelled button, the file’s name, one file at a time', async () => {
    const api = installFakeApi({
      'POST /import/message-nest': (req) => ok(report(req.query.get('dryRun') === '1')),
    });
    const { wrapper } = mountWithApp(MessageNestImport);
    expect(wrapper.find('input[type="file"]:not(.el-upload__input)').exists()).toBe(false);
    expect(wrapper.get('[data-testid="mn-import-choose"]').text()).toBe('Choose the database file');
    expect(wrapper.get('[data-testid="mn-import-preview"]').attributes('disabled')).toBeDefined();

    await pickFile(wrapper, new File([new Uint8Array([1])], 'old.db'));
    await pickFile(wrapper, new File([new Uint8Array([2, 2])], 'database.db'));
    const listed = wrapper.findAll('.el-upload-list__item').map((li) => li.text());
    expect(listed).toHaveLength(1);
    expect(listed[0]).toContain('database.db');
    await wrapper.get('[data-testid="mn-import-preview"]').trigger('click');
    await settle();
    const sent = api.calls.find((c) => c.path === '/import/message-nest')!;
    expect((sent.rawBody as Blob).size).toBe(2);
  });

  it('labels the skipped rows in Chinese', async () => {
    const { wrapper } = await previewWith('zh-CN');
    const skipped = wrapper.get('[data-testid="mn-import-skipped"]');
    expect(wrapper.text()).toContain('跳过的行（2）');
    expect(skipped.text()).toContain('Message Nest 表');
    expect(skipped.text()).toContain('原因');
  });

  it('shows no skipped table when nothing was left out', async () => {
    installFakeApi({
      'POST /import/message-nest': () => ok({ ...report(true), skipped: [] }),
    });
    const { wrapper } = mountWithApp(MessageNestImport);
    await pickFile(wrapper, new File([new Uint8Array([1])], 'database.db'));
    await wrapper.get('[data-testid="mn-import-preview"]').trigger('click');
    await settle();
    expect(wrapper.find('[data-testid="mn-import-counts"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="mn-import-skipped"]').exists()).toBe(false);
  });
});
