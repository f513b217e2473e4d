// @vitest-environment jsdom
// DOMPurify needs a DOM whose tree walk it supports (happy-dom breaks it; see render-content.ts).
import { afterEach, describe, expect, it } from 'vitest';

import MessageContent from '../../renderer/src/components/MessageContent.vue';
import { renderContent, sanitizeHtml } from '../../renderer/src/lib/render-content';
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
      { remoteImages: true },
    );

    // "x" is a remote address the image proxy did not sign: it never loads.
    expect(out).toEqual({
      kind: 'html',
      html: '<p>server <b>safe</b></p><img class="herald-remote-image">',
      blocked: 0,
    });
  });
});

/** Every URL in a rendered tree that the browser would fetch on its own: attributes and CSS. */
function remoteLoads(root: ParentNode): string[] {
  const urls: string[] = [];
  for (const el of root.querySelectorAll('*')) {
    for (const attr of ['src', 'srcset', 'poster', 'background', 'lowsrc', 'dynsrc', 'data']) {
      const value = el.getAttribute(attr);
      if (value !== null && !/^\s*data:/i.test(value)) urls.push(`${el.tagName} ${attr}=${value}`);
    }
    const style = el.getAttribute('style') ?? '';
    if (/url\(|image-set/i.test(style)) urls.push(`${el.tagName} style=${style}`);
  }
  return urls;
}

const parse = (html: string): Document => new DOMParser().parseFromString(html, 'text/html');

/** An image at the image proxy's signed address, as the server writes it into a message. */
const PROXIED =
  '/api/console/image-proxy?url=https%3A%2F%2Fcharts.example%2Fw.png&exp=1900000000&sig=' +
  'a'.repeat(43);

const TRACKED =
  '<p>Weekly report</p>' +
  `<img src="${PROXIED.replace(/&/g, '&amp;')}" alt="proxied">` +
  '<img src="https://tracker.example/p.gif" alt="pixel" width="1" height="1">' +
  '<img src="//tracker.example/proto-relative.gif">' +
  '<img src="/api/console/messages">' +
  '<picture><source src="https://tracker.example/s.webp" srcset="https://tracker.example/s2.webp 2x"><img src="https://tracker.example/fallback.png" alt="chart"></picture>' +
  '<video src="https://tracker.example/v.mp4" poster="https://tracker.example/poster.jpg"><track src="https://tracker.example/t.vtt"></video>' +
  '<audio src="http://tracker.example/a.mp3"></audio>' +
  '<table background="https://tracker.example/bg.png"><tr><td style="background-image: url(\'https://tracker.example/td.png\')">cell</td></tr></table>' +
  '<div style="background: image-set(\'https://tracker.example/set.png\' 1x)">set</div>' +
  '<div style="background: \\75 rl(https://tracker.example/escaped.png)">escaped</div>' +
  '<span style="color: #c00">kept colour</span>' +
  '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="inline">';

describe('remote images in hosted messages', () => {
  it('renderContent() holds back every remote load of an HTML body and counts the proxied images', () => {
    const out = renderContent(TRACKED, 'html');
    const doc = parse(out.kind === 'html' ? out.html : '');

    expect(remoteLoads(doc)).toEqual([]);
    // Only the proxied image can be shown; the other addresses never load.
    expect(out.kind === 'html' && out.blocked).toBe(1);
    expect(doc.querySelector('img[alt="pixel"]')?.className).toBe('herald-remote-image');
    expect(doc.querySelector('img[alt="chart"]')).not.toBeNull();
    expect(doc.querySelector('span')?.getAttribute('style')).toBe('color: #c00');
    expect(doc.body.textContent).toContain('Weekly report');
  });

  it('renderContent() lets data: images load', () => {
    const out = renderContent(TRACKED, 'html');
    const doc = parse(out.kind === 'html' ? out.html : '');

    expect(doc.querySelector('img[alt="inline"]')?.getAttribute('src')).toMatch(/^data:image\/gif/);
  });

  it('renderContent() shows only proxied images when the reader allows them, never an original', () => {
    const out = renderContent(TRACKED, 'html', undefined, { remoteImages: true });
    const doc = parse(out.kind === 'html' ? out.html : '');

    expect(out.kind === 'html' && out.blocked).toBe(0);
    expect(remoteLoads(doc)).toEqual([`IMG src=${PROXIED}`]);
    expect(doc.querySelector('img[alt="pixel"]')?.getAttribute('src')).toBeNull();
    expect(doc.querySelector('video')?.getAttribute('poster')).toBeNull();
  });

  it('renderContent() holds back images of a Markdown body and of the server’s rendering', () => {
    const markdown = renderContent('Chart: ![cpu](https://grafana.example/cpu.png)', 'markdown');
    const server = renderContent(
      'ignored',
      'html',
      `<p>hi</p><img src="${PROXIED.replace(/&/g, '&amp;')}" alt="pixel">`,
    );

    for (const out of [markdown, server]) {
      expect(out.kind).toBe('html');
      const doc = parse(out.kind === 'html' ? out.html : '');
      expect(remoteLoads(doc)).toEqual([]);
      expect(doc.querySelector('img')).not.toBeNull();
    }
    // The server's rendering carries the proxy's address, which the reader may show; the
    // browser's own Markdown rendering has only the original, which never loads.
    expect(server.kind === 'html' && server.blocked).toBe(1);
    expect(markdown.kind === 'html' && markdown.blocked).toBe(0);
  });

  it('sanitizeHtml() keeps remote images unless told otherwise (template previews are the admin’s own)', () => {
    const html = '<img src="https://example.com/logo.png" alt="logo">';

    expect(sanitizeHtml(html)).toContain('src="https://example.com/logo.png"');
    expect(sanitizeHtml(html, { remoteImages: false })).not.toContain('example.com');
  });

  it('MessageContent shows no remote image until "Show images" is pressed, then loads them', async () => {
    const { wrapper } = mountWithApp(MessageContent, {
      props: { content: TRACKED, format: 'html' },
    });
    const el = () => wrapper.get('[data-testid="message-content"]').element;

    expect(remoteLoads(el())).toEqual([]);
    expect(el().querySelectorAll('img')).toHaveLength(6);
    expect(wrapper.find('[data-testid="remote-images-hidden"]').text()).toContain(
      'Remote images are hidden',
    );

    await wrapper.get('[data-testid="show-images"]').trigger('click');

    expect(el().querySelector('img[alt="proxied"]')?.getAttribute('src')).toBe(PROXIED);
    expect(remoteLoads(el())).toEqual([`IMG src=${PROXIED}`]);
    expect(wrapper.emitted('choose')).toEqual([['message']]);
    expect(wrapper.find('[data-testid="remote-images-hidden"]').exists()).toBe(false);
  });

  it('MessageContent hides the images of the next message again', async () => {
    const { wrapper } = mountWithApp(MessageContent, {
      props: { content: TRACKED, format: 'html' },
    });
    await wrapper.get('[data-testid="show-images"]').trigger('click');

    await wrapper.setProps({ content: `<img src="${PROXIED.replace('w.png', 'q.gif')}" alt="q">` });

    expect(remoteLoads(wrapper.get('[data-testid="message-content"]').element)).toEqual([]);
    expect(wrapper.find('[data-testid="show-images"]').exists()).toBe(true);
  });

  it('MessageContent loads remote images at once under "always show remote images"', () => {
    const { wrapper } = mountWithApp(MessageContent, {
      props: { content: TRACKED, format: 'html', remoteImages: true },
    });

    expect(
      wrapper.get('[data-testid="message-content"] img[alt="proxied"]').attributes('src'),
    ).toBe(PROXIED);
    expect(wrapper.find('[data-testid="message-content"] img[alt="pixel"]').attributes('src')).toBe(
      undefined,
    );
    expect(wrapper.find('[data-testid="remote-images-hidden"]').exists()).toBe(false);
  });

  it('MessageContent shows no banner when a message has only inline images', () => {
    const { wrapper } = mountWithApp(MessageContent, {
      props: {
        content: '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="i">',
        format: 'html',
      },
    });

    expect(wrapper.find('[data-testid="remote-images-hidden"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="message-content"] img').attributes('src')).toMatch(/^data:/);
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
