import { afterEach, describe, expect, it, vi } from 'vitest';

import type { Settings } from '../../contract/console/settings';
import RemoteImagesCard from '../../renderer/src/components/account/RemoteImagesCard.vue';
import ReaderSettingsCard from '../../renderer/src/components/settings/ReaderSettingsCard.vue';
import { fail, installFakeApi, ok } from './helpers/fake-api';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

const settings = { showRemoteImages: false } as Settings;
const choices = (always: boolean | null, installDefault = true) =>
  ok({ always, installDefault, sources: [] });

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('ReaderSettingsCard', () => {
  it('saves the install’s default, and nothing of the administrator’s own choice', async () => {
    const api = installFakeApi({
      'PUT /settings': (req) =>
        ok({ showRemoteImages: (req.body as { showRemoteImages: boolean }).showRemoteImages }),
    });
    const { wrapper } = mountWithApp(
      ReaderSettingsCard,
      { props: { settings } },
      signedInContext('admin'),
    );
    await settle();
    await wrapper.get('[data-testid="settings-show-remote-images"]').trigger('click');
    await wrapper.get('[data-testid="settings-reader-save"]').trigger('submit');
    await settle();

    expect(api.calls.map((c) => [c.method, c.path, c.body])).toEqual([
      ['PUT', '/settings', { showRemoteImages: true }],
    ]);
    wrapper.unmount();
  });
});

describe('Account → Remote images', () => {
  it('lets a viewer say never, though the install shows images, and keeps it on the server', async () => {
    const api = installFakeApi({
      'GET /remote-images': () => choices(null, true),
      'PUT /remote-images': (req) => choices((req.body as { always: boolean | null }).always),
    });
    const { wrapper } = mountWithApp(RemoteImagesCard, {}, signedInContext('viewer'));
    await settle();
    const card = wrapper.get('[data-testid="account-remote-images"]');
    expect(card.find('input[value="install"]').element).toHaveProperty('checked', true);
    // The install's default is named, so "as the install" says what it means.
    expect(card.get('[data-testid="account-remote-images-install"]').text()).toBe(
      'As the install (shown)',
    );

    await card.get('[data-testid="account-remote-images-never"] input').setValue(true);
    await settle();
    expect(api.calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      { always: false },
    ]);
    expect(card.find('input[value="never"]').element).toHaveProperty('checked', true);

    await card.get('[data-testid="account-remote-images-install"] input').setValue(true);
    await settle();
    expect(api.calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      { always: false },
      { always: null },
    ]);
    wrapper.unmount();
  });

  it('puts the choice back where the server has it when a save is refused', async () => {
    installFakeApi({
      'GET /remote-images': () => choices(true, false),
      'PUT /remote-images': () => fail(500, 'the database is busy'),
    });
    const { wrapper } = mountWithApp(RemoteImagesCard, {}, signedInContext('editor'));
    await settle();
    const card = wrapper.get('[data-testid="account-remote-images"]');
    expect(card.find('input[value="always"]').element).toHaveProperty('checked', true);

    await card.get('[data-testid="account-remote-images-never"] input').setValue(true);
    await settle();
    expect(card.find('input[value="always"]').element).toHaveProperty('checked', true);
    expect(document.body.textContent).toContain('the database is busy');
    wrapper.unmount();
  });

  it('says so when the choice cannot be read, with a retry', async () => {
    installFakeApi({ 'GET /remote-images': () => fail(503, 'not now') });
    const { wrapper } = mountWithApp(RemoteImagesCard, {}, signedInContext('viewer'));
    await settle();
    expect(wrapper.find('[data-testid="account-remote-images-error"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="account-remote-images-choice"]').exists()).toBe(false);
    wrapper.unmount();
  });
});
