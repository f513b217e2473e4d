import { afterEach, describe, expect, it, vi } from 'vitest';

import BackupCard from '../../renderer/src/components/settings/BackupCard.vue';
import { fail, installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const schedule = (over: Record<string, unknown> = {}) => ({
  enabled: true,
  everyHours: 24,
  keep: 7,
  folder: '',
  includeKey: true,
  defaultFolder: '/data/backups',
  available: true,
  lastBackupAt: null,
  lastError: null,
  ...over,
});

describe('Settings → Backup', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  it('links the download, with or without the key, and saves the schedule', async () => {
    const api = installFakeApi({
      'GET /backup/schedule': () => ok(schedule()),
      'PUT /backup/schedule': (req) => {
        const body = req.body as { folder: string };
        if (body.folder === 'relative')
          return fail(
            400,
            "folder: must be an absolute path, or empty for the data folder's backups/",
          );
        return ok(schedule({ ...(req.body as object), lastBackupAt: '2026-11-27T14:00:00.000Z' }));
      },
    });
    const { wrapper } = mountWithApp(BackupCard);
    await settle();
    const link = () => wrapper.get<HTMLAnchorElement>('[data-testid="backup-download"]');
    expect(link().attributes('href')).toBe('/api/console/backup');
    // The download and the schedule ask about the key in the same words, with the same help.
    const downloadKey = wrapper.get('[data-testid="backup-download-include-key"]');
    const scheduleKey = wrapper.get('[data-testid="backup-include-key"]');
    expect(downloadKey.text()).toBe('Include the server key');
    expect(scheduleKey.text()).toBe('Include the server key');
    const help = (id: string) => wrapper.get(`[data-testid="${id}"]`).text();
    expect(help('backup-download-key-help')).toContain('holds the server key');
    expect(help('backup-include-key-help')).toBe(help('backup-download-key-help'));
    await downloadKey.get('input').setValue(false);
    await settle();
    expect(link().attributes('href')).toBe('/api/console/backup?withoutKey=1');
    expect(help('backup-download-key-help')).toContain('HERALD_SECRET_KEY');
    expect(help('backup-include-key-help')).toContain('holds the server key');
    await scheduleKey.get('input').setValue(false);
    expect(help('backup-include-key-help')).toBe(help('backup-download-key-help'));
    await scheduleKey.get('input').setValue(true);
    expect(wrapper.get<HTMLInputElement>('[data-testid="backup-folder"]').element.placeholder).toBe(
      '/data/backups',
    );
    expect(wrapper.get('[data-testid="backup-last"]').text()).toBe('No scheduled backup yet');

    await wrapper.get('[data-testid="backup-folder"]').setValue('relative');
    await wrapper.get('form').trigger('submit');
    await settle();
    expect(wrapper.get('[data-testid="backup-error"]').text()).toContain('absolute path');

    await wrapper.get('[data-testid="backup-folder"]').setValue('/srv/herald-backups');
    await wrapper.get('form').trigger('submit');
    await settle();
    const saved = api.calls.filter((c) => c.method === 'PUT').at(-1)!;
    expect(saved.body).toEqual({
      enabled: true,
      everyHours: 24,
      keep: 7,
      folder: '/srv/herald-backups',
      includeKey: true,
    });
    expect(wrapper.find('[data-testid="backup-error"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="backup-last"]').text()).toMatch(/^Last scheduled backup: /);
    wrapper.unmount();
  });

  it('on PostgreSQL says to use pg_dump, in Chinese too, and offers no download', async () => {
    installFakeApi({
      'GET /backup/schedule': () => ok(schedule({ available: false, lastError: null })),
    });
    const { wrapper } = mountWithApp(BackupCard, {}, createContext('zh-CN'));
    await settle();
    expect(wrapper.get('[data-testid="backup-postgres"]').text()).toContain('pg_dump');
    expect(wrapper.get('[data-testid="settings-backup"]').text()).toContain('备份');
    expect(wrapper.find('[data-testid="backup-download"]').exists()).toBe(false);
    wrapper.unmount();
  });

  it('shows why the last scheduled backup failed', async () => {
    installFakeApi({
      'GET /backup/schedule': () => ok(schedule({ lastError: 'EACCES: permission denied' })),
    });
    const { wrapper } = mountWithApp(BackupCard);
    await settle();
    expect(wrapper.get('[data-testid="backup-last-error"]').text()).toContain('EACCES');
    wrapper.unmount();
  });
});
