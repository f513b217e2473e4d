import { describe, expect, it } from 'vitest';

import UserAgentName from '../../renderer/src/components/UserAgentName.vue';
import { nameUserAgent } from '../../renderer/src/lib/user-agent';
import { createContext, mountWithApp } from './helpers/mount';

/** Real User-Agent headers, as browsers of late 2026 send them. */
const AGENTS = {
  chromeLinux:
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  chromeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  edgeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86',
  firefoxMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.7; rv:133.0) Gecko/20100101 Firefox/133.0',
  safariMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  chromeIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
  chromeAndroid:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  samsungAndroid:
    'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  operaWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0',
  wechatAndroid:
    'Mozilla/5.0 (Linux; Android 13; V2203A) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 Mobile Safari/537.36 XWEB/1160065 MMWEBSDK/20231202 MicroMessenger/8.0.47.2560(0x28002F30) WeChat/arm64',
  chromebook:
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  heraldDesktop:
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) herald/0.1.0 Chrome/130.0.6723.191 Electron/33.3.1 Safari/537.36',
  curl: 'curl/8.5.0',
};

describe('nameUserAgent()', () => {
  it.each([
    ['chromeLinux', 'Chrome', 'Linux'],
    ['chromeWindows', 'Chrome', 'Windows'],
    ['edgeWindows', 'Edge', 'Windows'],
    ['firefoxMac', 'Firefox', 'macOS'],
    ['safariMac', 'Safari', 'macOS'],
    ['safariIphone', 'Safari', 'iOS'],
    ['chromeIphone', 'Chrome', 'iOS'],
    ['chromeAndroid', 'Chrome', 'Android'],
    ['samsungAndroid', 'Samsung Internet', 'Android'],
    ['operaWindows', 'Opera', 'Windows'],
    ['wechatAndroid', 'WeChat', 'Android'],
    ['chromebook', 'Chrome', 'ChromeOS'],
    ['heraldDesktop', 'Herald desktop', 'Linux'],
    ['curl', 'curl', null],
  ] as const)('nameUserAgent() names %s %s on %s', (agent, browser, system) => {
    expect(nameUserAgent(AGENTS[agent])).toEqual({ browser, system });
  });

  it('nameUserAgent() answers nulls for a header it does not know, or none', () => {
    expect(nameUserAgent('SomeBot/1.0')).toEqual({ browser: null, system: null });
    expect(nameUserAgent(null)).toEqual({ browser: null, system: null });
  });
});

describe('UserAgentName', () => {
  const shown = async (ua: string | null, locale: 'en' | 'zh-CN' = 'en') => {
    const { wrapper } = mountWithApp(UserAgentName, { props: { ua } }, createContext(locale));
    const shownText = { text: wrapper.text(), title: wrapper.attributes('title') };
    wrapper.unmount();
    return shownText;
  };

  it('says "Chrome on Linux" and keeps the raw header for hover', async () => {
    expect(await shown(AGENTS.chromeLinux)).toEqual({
      text: 'Chrome on Linux',
      title: AGENTS.chromeLinux,
    });
  });

  it('says it in Chinese, and names Herald’s own window', async () => {
    expect((await shown(AGENTS.chromeLinux, 'zh-CN')).text).toBe('Linux 上的 Chrome');
    expect((await shown(AGENTS.heraldDesktop)).text).toBe('Herald desktop app on Linux');
  });

  it('says what it knows of an odd header, and a dash for none', async () => {
    expect((await shown(AGENTS.curl)).text).toBe('curl');
    expect((await shown('Mozilla/5.0 (X11; Linux x86_64) Oddity/1')).text).toBe(
      'A browser on Linux',
    );
    expect((await shown('SomeBot/1.0')).text).toBe('Unknown browser');
    expect((await shown(null)).text).toBe('—');
  });
});
