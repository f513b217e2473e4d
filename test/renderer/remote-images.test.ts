// @vitest-environment jsdom
// DOMPurify (MessageContent) needs a DOM whose tree walk it supports (see render-content.ts).
import { afterEach, describe, expect, it } from 'vitest';

import MessageDrawer from '../../renderer/src/components/MessageDrawer.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { hostedMessageDetail } from './helpers/hosted-message';
import { mountWithApp, settle, signedInContext } from './helpers/mount';

/** The image proxy's signed address the server writes in place of the original. */
const PROXIED =
  '/api/console/image-proxy?url=https%3A%2F%2Fcharts.example%2Fw.png&exp=1900000000&sig=' +
  'c'.repeat(43);

const detail = (showRemoteImages: boolean, extra = '') =>
  hostedMessageDetail(7, {
    title: 'Weekly report',
    content: '<p>chart</p><img src="https://charts.example/w.png" alt="chart">',
    excerpt: 'chart',
    format: 'html',
    safeHtml: `<p>chart</p><img src="${PROXIED.replace(/&/g, '&amp;')}" alt="chart">${extra}`,
    showRemoteImages,
    remoteImages: {
      message: false,
      source: { kind: 'template', id: 3, chosen: false },
      always: null,
    },
  });

const choices = { always: null, installDefault: false, sources: [] };

afterEach(() => {
  document.body.innerHTML = '';
});

const img = (alt = 'chart') =>
  document.querySelector(`[data-testid="message-content"] img[alt="${alt}"]`);
const button = (testid: string) =>
  document.querySelector<HTMLButtonElement>(`[data-testid="${testid}"]`);

/** Every src in the message that the browser would load: only Herald's own addresses. */
const loadedSrcs = () =>
  [...document.querySelectorAll('[data-testid="message-content"] [src]')].map((el) =>
    el.getAttribute('src'),
  );

describe('the reader’s remote images', () => {
  it.each([
    ['show-images', 'PUT /remote-images/messages/7', { show: true }],
    ['show-images-source', 'PUT /remote-images/sources/template/3', { show: true }],
    ['show-images-always', 'PUT /remote-images', { always: true }],
  ] as const)(
    '%s shows the proxied images, never the original, and saves the choice as the person’s',
    async (testid, call, body) => {
      const api = installFakeApi({
        'GET /messages/:id': () => ok(detail(false)),
        'PUT /remote-images/messages/:id': () => ok({ show: true }),
        'PUT /remote-images/sources/template/:id': () => ok(choices),
        'PUT /remote-images': () => ok({ ...choices, always: true }),
      });
      const { wrapper } = mountWithApp(
        MessageDrawer,
        { props: { messageId: 7 } },
        signedInContext('viewer'),
      );
      await settle(10);
      expect(img()?.getAttribute('src')).toBeNull();
      expect(document.querySelector('[data-testid="remote-images-hidden"]')).not.toBeNull();

      button(testid)!.click();
      await settle(10);

      expect(img()?.getAttribute('src')).toBe(PROXIED);
      expect(loadedSrcs()).toEqual([PROXIED]);
      expect(document.querySelector('[data-testid="remote-images-hidden"]')).toBeNull();
      const puts = api.calls.filter((c) => c.method === 'PUT');
      expect(puts.map((c) => [`${c.method} ${c.path}`, c.body])).toEqual([[call, body]]);
      wrapper.unmount();
    },
  );

  it('loads the proxied images at once when the person’s choice says so, and never an original address', async () => {
    const original =
      '<img src="https://tracker.example/p.gif" alt="pixel"><img src="http://lan.example/x.png" alt="lan">';
    const api = installFakeApi({ 'GET /messages/:id': () => ok(detail(true, original)) });
    const { wrapper } = mountWithApp(
      MessageDrawer,
      { props: { messageId: 7 } },
      signedInContext('viewer'),
    );
    await settle(10);

    expect(img()?.getAttribute('src')).toBe(PROXIED);
    expect(img('pixel')).not.toBeNull();
    expect(loadedSrcs()).toEqual([PROXIED]);
    expect(document.querySelector('[data-testid="remote-images-hidden"]')).toBeNull();
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /messages/7']);
    wrapper.unmount();
  });

  it('takes back the person’s choice: the images are hidden again', async () => {
    let chosen = true;
    const api = installFakeApi({
      'GET /messages/:id': () =>
        ok({
          ...detail(chosen),
          remoteImages: {
            message: chosen,
            source: { kind: 'template', id: 3, chosen: false },
            always: null,
          },
        }),
      'PUT /remote-images/messages/:id': (req) => {
        chosen = (req.body as { show: boolean }).show;
        return ok({ show: chosen });
      },
    });
    const { wrapper } = mountWithApp(
      MessageDrawer,
      { props: { messageId: 7 } },
      signedInContext('viewer'),
    );
    await settle(10);
    expect(img()?.getAttribute('src')).toBe(PROXIED);

    button('stop-images')!.click();
    await settle(10);

    expect(img()?.getAttribute('src')).toBeNull();
    expect(document.querySelector('[data-testid="remote-images-hidden"]')).not.toBeNull();
    expect(document.querySelector('[data-testid="remote-images-chosen"]')).toBeNull();
    const puts = api.calls.filter((c) => c.method === 'PUT');
    expect(puts.map((c) => [c.path, c.body])).toEqual([
      ['/remote-images/messages/7', { show: false }],
    ]);
    wrapper.unmount();
  });

  it('offers no "always for this source" when the message’s source is unknown', async () => {
    installFakeApi({
      'GET /messages/:id': () =>
        ok({ ...detail(false), remoteImages: { message: false, source: null, always: null } }),
    });
    const { wrapper } = mountWithApp(
      MessageDrawer,
      { props: { messageId: 7 } },
      signedInContext('viewer'),
    );
    await settle(10);

    expect(button('show-images')).not.toBeNull();
    expect(button('show-images-always')).not.toBeNull();
    expect(button('show-images-source')).toBeNull();
    wrapper.unmount();
  });
});
