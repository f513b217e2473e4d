import { describe, expect, it, vi } from 'vitest';

// A DOMPurify that hands its input back unchanged, as it does where it deems the DOM unsupported.
vi.mock('dompurify', () => ({
  default: { isSupported: false, sanitize: (html: string) => html, addHook: () => undefined },
}));

const { sanitizeHtml, renderContent } = await import('../../renderer/src/lib/render-content');

describe('sanitizeHtml() without a working DOMPurify', () => {
  it('sanitizeHtml() shows the HTML as escaped text instead of trusting it', () => {
    const out = sanitizeHtml('<img src="data:," onerror="alert(1)"><script>x()</script>');

    expect(out).toBe(
      '<pre>&lt;img src=&quot;data:,&quot; onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;x()&lt;/script&gt;</pre>',
    );
  });

  it('renderContent() escapes rendered Markdown too', () => {
    const out = renderContent('**hi** <script>x()</script>', 'markdown');

    expect(out.kind).toBe('html');
    const html = out.kind === 'html' ? out.html : '';
    expect(html.startsWith('<pre>')).toBe(true);
    expect(html).toContain('&lt;script&gt;x()&lt;/script&gt;');
    expect(html).not.toContain('<script>');
  });
});
