import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import LocaleSwitch from '../../renderer/src/components/LocaleSwitch.vue';
import { LOCALE_STORAGE_KEY, createAppI18n, detectLocale } from '../../renderer/src/i18n';
import en from '../../renderer/src/i18n/en';
import zhCN from '../../renderer/src/i18n/zh-CN';
import SignInPage from '../../renderer/src/pages/SignInPage.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp } from './helpers/mount';

function keys(obj: object, prefix = ''): string[] {
  return Object.entries(obj).flatMap(([k, v]) =>
    typeof v === 'object' && v !== null ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('detectLocale()', () => {
  it('detectLocale() prefers the remembered choice', () => {
    expect(detectLocale('en', ['zh-CN'])).toBe('en');
    expect(detectLocale('zh-CN', ['en-US'])).toBe('zh-CN');
  });

  it('detectLocale() picks Chinese for any zh-* system language', () => {
    expect(detectLocale(null, ['zh-TW'])).toBe('zh-CN');
    expect(detectLocale(null, ['fr-FR', 'zh'])).toBe('zh-CN');
  });

  it('detectLocale() falls back to English for other languages and junk in storage', () => {
    expect(detectLocale(null, ['de-DE'])).toBe('en');
    expect(detectLocale('klingon', [])).toBe('en');
  });

  it('createAppI18n() starts from navigator.language when nothing is remembered', () => {
    vi.stubGlobal('navigator', { ...navigator, language: 'zh-CN', languages: ['zh-CN', 'en'] });

    expect(createAppI18n().global.locale.value).toBe('zh-CN');
  });
});

describe('messages', () => {
  it('zh-CN has exactly the keys of en', () => {
    expect(keys(zhCN).sort()).toEqual(keys(en).sort());
  });
});

describe('LocaleSwitch', () => {
  it('LocaleSwitch switches the UI language and remembers it', async () => {
    installFakeApi({
      'GET /status': () => ok({ setupRequired: false, version: '1.0.0', user: null }),
    });
    const ctx = createContext('en');
    const { wrapper } = mountWithApp(SignInPage, {}, ctx);
    await vi.waitFor(() =>
      expect(wrapper.get('[data-testid="login-submit"]').text()).toBe('Sign in'),
    );

    const switcher = wrapper.findComponent(LocaleSwitch);
    await switcher.findComponent({ name: 'ElSelect' }).vm.$emit('update:modelValue', 'zh-CN');

    await vi.waitFor(() => expect(wrapper.get('[data-testid="login-submit"]').text()).toBe('登录'));
    expect(localStorage.getItem(LOCALE_STORAGE_KEY)).toBe('zh-CN');
    expect(document.documentElement.lang).toBe('zh-CN');
  });
});
