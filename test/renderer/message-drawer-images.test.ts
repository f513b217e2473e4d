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
  'b'.repeat(43);

const detail = (showRemoteImages: boolean) =>
  hostedMessageDetail(7, {
    title: 'Weekly report',
    content: '<p>chart</p><img src="https://charts.example/w.png" alt="chart">',
    excerpt: 'chart',
    format: 'html',
    safeHtml: `<p>chart</p><img src="${PROXIED.replace(/&/g, '&amp;')}" alt="chart">`,
    showRemoteImages,
  });

afterEach(() => {
  document.body.innerHTML = '';
});

describe('MessageDrawer remote images', () => {
  it.each(['viewer', 'admin'] as const)(
    'follows the setting the message carries, for a %s, without reading the settings',
    async (role) => {
      for (const on of [false, true]) {
        const api = installFakeApi({ 'GET /messages/:id': () => ok(detail(on)) });
        const { wrapper } = mountWithApp(
          MessageDrawer,
          { props: { messageId: 7 } },
          signedInContext(role),
        );
        await settle(10);
        const img = document.querySelector('[data-testid="message-content"] img[alt="chart"]');
        const hidden = document.querySelector('[data-testid="remote-images-hidden"]');
        if (on) {
          expect(img?.getAttribute('src')).toBe(PROXIED);
          expect(hidden).toBeNull();
        } else {
          expect(img?.getAttribute('src')).toBeNull();
          expect(hidden).not.toBeNull();
        }
        expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /messages/7']);
        wrapper.unmount();
        document.body.innerHTML = '';
      }
    },
  );
});
