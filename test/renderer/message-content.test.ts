// @vitest-environment jsdom
// DOMPurify needs a DOM whose tree walk it supports (happy-dom breaks it; see render-content.ts).
import { afterEach, describe, expect, it } from 'vitest';

import MessageContent from '../../renderer/src/components/MessageContent.vue';
import { contentPreview, renderContent, sanitizeHtml } from '../../renderer/src/lib/render-content';
import { mountWithApp } from './helpers/mount';

const HOSTILE =
  '<p>Hello <b>team</b></p>' +
  '<script>window.__pwned = true</script>' +
  '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" onerror="window.__pwned = true" alt="pixel">' +
  '<a href="javascript:alert(1)">bad</a>' +
  '<a href="https://example.com/report" onclick="steal()">report</a>' +
  '<style>body{display:none}</style>' +
  '<form action="https://evil.example"><input name="password"></form>';

afterEach(() => {
  document.body.innerHTML = '';
});

describe('sanitizeHtml()', () => {
  it('sanitizeHtml() removes scripts, event handlers, javascript: links, styles and forms', () => {
    const html = sanitizeHtml(HOSTILE);

    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/onerror|onclick/i);
    expect(html).not.toMatch(/javascript:/i);
    expect(html).not.toMatch(/<style|<form|<input/i);
    expect(html).toContain('<b>team</b>');
    expect(html).toContain('alt="pixel"');
  });

  it('sanitizeHtml() makes links open in a new tab without an opener', () => {
    const doc = new DOMParser().parseFromString(sanitizeHtml(HOSTILE), 'text/html');
    const link = doc.querySelector('a[href="https://example.com/report"]');

    expect(link?.getAttribute('target')).toBe('_blank');
    expect(link?.getAttribute('rel')).toContain('noopener');
  });
});

describe('renderContent()', () => {
  it('renderContent() renders Markdown and sanitises raw HTML inside it', () => {
    const out = renderContent(
      '# Title\n\n**bold** <img src="data:," onerror="alert(1)">',
      'markdown',
    );

    expect(out.kind).toBe('html');
    const html = out.kind === 'html' ? out.html : '';
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).not.toContain('onerror');
  });

  it('renderContent() keeps Text as text, never as markup', () => {
    expect(renderContent('<b>not bold</b>', 'text')).toEqual({
      kind: 'text',
      text: '<b>not bold</b>',
    });
  });

  it('renderContent() prefers the server’s sanitised HTML and still runs DOMPurify over it', () => {
    const out = renderContent(
      '<p>raw</p>',
      'html',
      '<p>server <b>safe</b></p><img src=x onerror=alert(1)>',
    );

    expect(out).toEqual({ kind: 'html', html: '<p>server <b>safe</b></p><img src="x">' });
  });

  it('contentPreview() decodes the common entities of an HTML body', () => {
    expect(contentPreview('<p>R&amp;D &lt;3 &quot;ok&quot;</p>', 'html')).toBe('R&D <3 "ok"');
  });

  it('contentPreview() strips tags and folds whitespace for list rows', () => {
    expect(contentPreview('<p>Disk\n\n<b>full</b></p><script>x()</script>', 'html')).toBe(
      'Disk full',
    );
    expect(contentPreview('a'.repeat(100), 'text', 10)).toBe('aaaaaaaaa…');
  });
});

describe('MessageContent', () => {
  it('MessageContent shows hostile HTML without running its script or keeping its handlers', () => {
    const { wrapper } = mountWithApp(MessageContent, {
      props: { content: HOSTILE, format: 'html' },
    });
    const el = wrapper.get('[data-testid="message-content"]').element;

    expect(el.querySelector('script')).toBeNull();
    expect(el.querySelector('[onerror]')).toBeNull();
    expect(el.querySelector('[onclick]')).toBeNull();
    expect(el.querySelector('img')?.getAttribute('alt')).toBe('pixel');
    expect((window as unknown as { __pwned?: boolean }).__pwned).toBeUndefined();
  });

  it('MessageContent shows a Text body literally', () => {
    const { wrapper } = mountWithApp(MessageContent, {
      props: { content: '<script>alert(1)</script> 1 < 2', format: 'text' },
    });
    const el = wrapper.get('[data-testid="message-content"]');

    expect(el.element.tagName).toBe('PRE');
    expect(el.text()).toBe('<script>alert(1)</script> 1 < 2');
    expect(el.element.querySelector('script')).toBeNull();
  });
});
