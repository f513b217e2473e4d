// @vitest-environment jsdom
// DOMPurify needs a DOM whose tree walk it supports (happy-dom breaks it; see render-content.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';

import TemplatePreview from '../../renderer/src/components/TemplatePreview.vue';
import { fail, installFakeApi, ok, type FakeRequest } from './helpers/fake-api';
import { mountWithApp, settle } from './helpers/mount';

/** A stand-in for the server's substitution: one level, defaults, unknown markers kept. */
function substitute(req: FakeRequest) {
  const body = req.body as {
    placeholders: Record<string, string>;
    definitions: { key: string; default?: string }[];
    text: string;
    html: string;
    markdown: string;
  };
  const fill = (s: string) =>
    s.replace(/\{\{(\w+)\}\}/g, (m, key: string) => {
      const def = body.definitions.find((d) => d.key === key);
      if (!def) return m;
      return body.placeholders[key] ?? def.default ?? m;
    });
  return ok({ text: fill(body.text), html: fill(body.html), markdown: fill(body.markdown) });
}

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('TemplatePreview', () => {
  it('TemplatePreview sends the typed values and definitions and renders each format', async () => {
    const { calls } = installFakeApi({ 'POST /templates/preview': substitute });
    const { wrapper } = mountWithApp(TemplatePreview, {
      props: {
        definitions: [
          { key: 'host', label: 'Host' },
          { key: 'level', label: 'Level', default: 'warning' },
        ],
        values: { host: 'db-1', level: '' },
        text: 'Disk on {{host}} is {{level}} <b>raw</b>',
        html: '<p>Disk on <b>{{host}}</b></p><script>window.__x=1</script>',
        markdown: '**{{host}}** is {{level}}, {{unknown}} stays',
        debounceMs: 0,
      },
    });
    await vi.waitFor(() =>
      expect(wrapper.find('[data-testid="template-preview-text"]').exists()).toBe(true),
    );
    await settle();

    const sent = calls[calls.length - 1].body as { placeholders: Record<string, string> };
    // An empty box is "not passed", so the default applies as in a real send.
    expect(sent.placeholders).toEqual({ host: 'db-1' });
    expect(wrapper.get('[data-testid="template-preview-text"]').text()).toBe(
      'Disk on db-1 is warning <b>raw</b>',
    );
    const html = wrapper.get('[data-testid="template-preview-html"]').element;
    expect(html.querySelector('b')?.textContent).toBe('db-1');
    expect(html.querySelector('script')).toBeNull();
    const md = wrapper.get('[data-testid="template-preview-markdown"]');
    expect(md.element.querySelector('strong')?.textContent).toBe('db-1');
    expect(md.text()).toContain('{{unknown}} stays');
  });

  it('TemplatePreview asks again when a value changes', async () => {
    const { calls } = installFakeApi({ 'POST /templates/preview': substitute });
    const { wrapper } = mountWithApp(TemplatePreview, {
      props: {
        definitions: [{ key: 'name', label: 'Name' }],
        values: { name: 'Ada' },
        text: 'Hi {{name}}',
        html: '',
        markdown: '',
        debounceMs: 0,
      },
    });
    await vi.waitFor(() =>
      expect(wrapper.find('[data-testid="template-preview-text"]').text()).toBe('Hi Ada'),
    );

    await wrapper.setProps({ values: { name: 'Grace' } });

    await vi.waitFor(() =>
      expect(wrapper.get('[data-testid="template-preview-text"]').text()).toBe('Hi Grace'),
    );
    expect(calls.length).toBeGreaterThanOrEqual(2);
  });

  it('TemplatePreview shows the server msg when the preview is refused', async () => {
    installFakeApi({
      'POST /templates/preview': () => fail(400, 'placeholders.0.key: 占位符名称不能为空'),
    });
    const { wrapper } = mountWithApp(TemplatePreview, {
      props: { definitions: [], values: {}, text: 'x', html: '', markdown: '', debounceMs: 0 },
    });

    await vi.waitFor(() =>
      expect(wrapper.find('[data-testid="template-preview-error"]').text()).toContain(
        '占位符名称不能为空',
      ),
    );
  });
});
