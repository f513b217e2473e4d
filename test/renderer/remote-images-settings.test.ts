import { afterEach, describe, expect, it, vi } from 'vitest';

import type { Settings } from '../../contract/console/settings';
import ReaderSettingsCard from '../../renderer/src/components/settings/ReaderSettingsCard.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

const settings = { showRemoteImages: false } as Settings;

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('ReaderSettingsCard', () => {
  it('saves the install’s default and the person’s own choice, each where it is kept', async () => {
    const api = installFakeApi({
      'GET /remote-images': () => ok({ always: null, installDefault: false, sources: [] }),
      'PUT /remote-images': (req) =>
        ok({ ...(req.body as object), installDefault: false, sources: [] }),
      'PUT /settings': (req) =>
        ok({ showRemoteImages: (req.body as { showRemoteImages: boolean }).showRemoteImages }),
    });
    const { wrapper } = mountWithApp(
      ReaderSettingsCard,
      { props: { settings } },
      signedInContext('admin'),
    );
    await settle();
    const mine = wrapper.get('[data-testid="settings-my-remote-images"]');
    expect(mine.find('input[value="install"]').element).toHaveProperty('checked', true);

    await wrapper.get('[data-testid="settings-my-remote-images-never"] input').setValue(true);
    await wrapper.get('[data-testid="settings-reader-save"]').trigger('submit');
    await settle();

    expect(api.calls.filter((c) => c.method === 'PUT').map((c) => [c.path, c.body])).toEqual([
      ['/settings', { showRemoteImages: false }],
      ['/remote-images', { always: false }],
    ]);
    wrapper.unmount();
  });

  it('keeps the install’s switch when the person’s choice cannot be read', async () => {
    installFakeApi({});
    const { wrapper } = mountWithApp(
      ReaderSettingsCard,
      { props: { settings } },
      signedInContext('admin'),
    );
    await settle();

    expect(wrapper.find('[data-testid="settings-show-remote-images"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="settings-my-remote-images"]').exists()).toBe(false);
    wrapper.unmount();
  });
});
