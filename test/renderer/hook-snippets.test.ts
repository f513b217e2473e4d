import { afterEach, describe, expect, it } from 'vitest';

import HookSnippets from '../../renderer/src/components/HookSnippets.vue';
import {
  bearerHookUrl,
  HOOK_PRESET_NAMES,
  hookSnippet,
  hookUrl,
} from '../../renderer/src/lib/hook-snippets';
import { createContext, mountWithApp, settle } from './helpers/mount';

const input = { origin: 'http://192.168.1.5:8765/', token: "tok'en/1", hasSecret: false };

afterEach(() => {
  document.body.innerHTML = '';
});

describe('hook snippets', () => {
  it('hookUrl() puts the preset and the escaped token under /api/hooks', () => {
    expect(HOOK_PRESET_NAMES).toEqual([
      'alertmanager',
      'grafana',
      'github',
      'uptime-kuma',
      'generic',
    ]);
    expect(hookUrl(input.origin, 'github', input.token)).toBe(
      "http://192.168.1.5:8765/api/hooks/github/tok'en%2F1",
    );
    expect(bearerHookUrl(input.origin, 'generic')).toBe(
      'http://192.168.1.5:8765/api/hooks/generic',
    );
  });

  it('hookSnippet() writes each sender’s configuration with the URL', () => {
    const url = hookUrl(input.origin, 'alertmanager', input.token);
    const alertmanager = hookSnippet('alertmanager', input);
    expect(alertmanager).toContain('webhook_configs:');
    // YAML single quotes double a quote inside.
    expect(alertmanager).toContain(`- url: '${url.replace("'", "''")}'`);
    expect(alertmanager).toContain('send_resolved: true');
    expect(hookSnippet('grafana', input)).toMatch(
      /type: webhook\n\s+settings:\n\s+url: '.*\/api\/hooks\/grafana\//,
    );
    const github = hookSnippet('github', input);
    expect(github).toContain('Content type: application/json');
    expect(github).toContain('Secret:       (empty');
    expect(hookSnippet('github', { ...input, hasSecret: true })).toContain(
      "the template's hook secret",
    );
    expect(hookSnippet('uptime-kuma', input)).toContain('Preset - application/json');
    // The curl line is shell-safe: the quote in the token is closed, escaped and reopened.
    expect(hookSnippet('generic', input)).toContain(
      `'http://192.168.1.5:8765/api/hooks/generic/tok'\\''en%2F1'`,
    );
    expect(hookSnippet('generic', { ...input, hasSecret: true })).toMatch(
      /^# The template has a hook secret/,
    );
  });
});

describe('HookSnippets', () => {
  it('shows the chosen preset’s URL and configuration, in the console’s language', async () => {
    const { wrapper } = mountWithApp(HookSnippets, {
      props: { origin: 'http://127.0.0.1:8765', token: 'TOKEN', hasSecret: true },
    });
    await settle();
    expect(wrapper.get('[data-testid="hook-url"]').text()).toBe(
      'http://127.0.0.1:8765/api/hooks/alertmanager/TOKEN',
    );
    expect(wrapper.get('[data-testid="hook-snippet"]').text()).toContain('webhook_configs:');
    expect(wrapper.find('[data-testid="hook-secret-set"]').exists()).toBe(true);

    await wrapper.get('[data-testid="hook-preset-github"] input').setValue(true);
    await settle();
    expect(wrapper.get('[data-testid="hook-url"]').text()).toBe(
      'http://127.0.0.1:8765/api/hooks/github/TOKEN',
    );
    expect(wrapper.get('[data-testid="hook-snippet"]').text()).toContain('Payload URL:');
    expect(wrapper.get('[data-testid="hook-bearer"]').text()).toContain(
      'POST http://127.0.0.1:8765/api/hooks/github with the header Authorization: Bearer',
    );
  });

  it('speaks Chinese in the zh-CN console', async () => {
    const { wrapper } = mountWithApp(
      HookSnippets,
      { props: { origin: 'http://127.0.0.1:8765', token: 'T', hasSecret: false } },
      createContext('zh-CN'),
    );
    await settle();
    expect(wrapper.text()).toContain('入站 Hook');
    expect(wrapper.text()).toContain('通用 JSON');
    expect(wrapper.find('[data-testid="hook-secret-set"]').exists()).toBe(false);
  });
});
