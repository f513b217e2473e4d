import { afterEach, describe, expect, it } from 'vitest';

import RedirectNotice from '../../renderer/src/components/RedirectNotice.vue';
import { redirectNotice } from '../../renderer/src/lib/redirect-notice';
import { useSessionStore } from '../../renderer/src/stores/session-store';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

afterEach(() => {
  redirectNotice.value = null;
  document.body.innerHTML = '';
});

const notice = () => document.querySelector('[data-testid="redirect-notice"]');

describe('RedirectNotice', () => {
  it('tells a viewer sent away from Users why they are on the dashboard, until they move on', async () => {
    const ctx = signedInContext('viewer');
    const { wrapper } = mountWithApp(RedirectNotice, {}, ctx);
    await ctx.router.push('/users');
    await settle();
    expect(ctx.router.currentRoute.value.name).toBe('dashboard');
    expect(notice()?.textContent).toContain(
      'Users needs the Admin role, and you are signed in as Viewer, so you were brought to the dashboard instead.',
    );

    await ctx.router.push('/logs');
    await settle();
    expect(notice()).toBeNull();
    expect(redirectNotice.value).toBeNull();
    wrapper.unmount();
  });

  it('says it in Chinese', async () => {
    const ctx = signedInContext('viewer', 'zh-CN');
    const { wrapper } = mountWithApp(RedirectNotice, {}, ctx);
    await ctx.router.push('/schedules');
    await settle();
    expect(notice()?.textContent).toContain('需要“编辑者”角色，你当前的角色是“查看者”');
    wrapper.unmount();
  });

  it('says nothing on an ordinary navigation', async () => {
    const ctx = signedInContext('admin');
    const { wrapper } = mountWithApp(RedirectNotice, {}, ctx);
    await ctx.router.push('/users');
    await settle();
    expect(ctx.router.currentRoute.value.name).toBe('users');
    expect(notice()).toBeNull();
    wrapper.unmount();
  });

  it('tells someone whose administrator requires two-factor why they are on Account', async () => {
    const ctx = signedInContext('editor');
    useSessionStore(ctx.pinia).user = {
      id: 3,
      username: 'e',
      role: 'editor',
      twoFactor: 'required',
    };
    const { wrapper } = mountWithApp(RedirectNotice, {}, ctx);
    await ctx.router.push('/channels');
    await settle();
    expect(ctx.router.currentRoute.value.name).toBe('account');
    expect(notice()?.textContent).toContain('Your administrator requires two-factor sign-in.');
    wrapper.unmount();
  });
});
