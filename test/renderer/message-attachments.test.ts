// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';

import MessageDrawer from '../../renderer/src/components/MessageDrawer.vue';
import PreviewPage from '../../renderer/src/pages/PreviewPage.vue';
import type { HostedAttachment } from '@contract';

import { installFakeApi, ok } from './helpers/fake-api';
import { hostedMessageDetail } from './helpers/hosted-message';
import { createContext, mountWithApp, settle, signedInContext } from './helpers/mount';

const detail = (attachments: HostedAttachment[]) =>
  hostedMessageDetail(7, {
    title: 'Nightly report',
    content: 'see the files',
    excerpt: 'see the files',
    safeHtml: '<p>see the files</p>',
    attachments,
  });

const IMAGE = '/api/files/AAAAAAAAAAAAAAAAAAAAAAAA/chart.png';
const PDF = '/api/files/BBBBBBBBBBBBBBBBBBBBBBBB/report.pdf';

afterEach(() => {
  document.body.innerHTML = '';
});

describe('MessageDrawer files (issue 43 §2)', () => {
  it('shows an image inline from Herald’s path and offers another file as a download', async () => {
    installFakeApi({
      'GET /messages/:id': () =>
        ok(
          detail([
            { name: 'chart.png', type: 'image/png', size: 2048, inline: true, url: IMAGE },
            { name: 'report.pdf', type: 'application/pdf', size: 1536, inline: false, url: PDF },
          ]),
        ),
    });
    const { wrapper } = mountWithApp(
      MessageDrawer,
      { props: { messageId: 7 } },
      signedInContext('viewer'),
    );
    await settle(10);
    const list = document.querySelector('[data-testid="message-attachments"]');
    expect(list?.textContent).toContain('Files');
    const img = list?.querySelector('[data-testid="attachment-image"] img');
    expect(img?.getAttribute('src')).toBe(IMAGE);
    expect(img?.getAttribute('alt')).toBe('chart.png');
    const file = list?.querySelector('[data-testid="attachment-file"] a');
    expect(file?.getAttribute('href')).toBe(PDF);
    expect(file?.getAttribute('download')).toBe('report.pdf');
    expect(list?.querySelector('[data-testid="attachment-file"]')?.textContent).toContain('1.5 KB');
    // A file that is not an inline image is never put in an <img>.
    expect(list?.querySelectorAll('img')).toHaveLength(1);
    wrapper.unmount();
  });

  it('shows no file list for a message without files', async () => {
    installFakeApi({ 'GET /messages/:id': () => ok(detail([])) });
    const { wrapper } = mountWithApp(
      MessageDrawer,
      { props: { messageId: 7 } },
      signedInContext('viewer'),
    );
    await settle(10);
    expect(document.querySelector('[data-testid="message-content"]')).not.toBeNull();
    expect(document.querySelector('[data-testid="message-attachments"]')).toBeNull();
    wrapper.unmount();
  });
});

describe('PreviewPage files (issue 43 §2)', () => {
  it('the share link’s page shows the message’s image inline and its other file to download', async () => {
    const { attachments, title, content, format, url, safeHtml, createdAt } = detail([
      { name: 'chart.png', type: 'image/png', size: 2048, inline: true, url: IMAGE },
      { name: 'report.pdf', type: 'application/pdf', size: 1536, inline: false, url: PDF },
    ]);
    installFakeApi({
      'GET /api/public/preview/:key': () =>
        ok({ title, content, format, url, safeHtml, createdAt, attachments }),
    });
    const ctx = createContext('zh-CN');
    await ctx.router.push('/preview/aB3dE5gH7jK9mN1pQr_s-w');
    const { wrapper } = mountWithApp(PreviewPage, {}, ctx);
    await settle(10);
    expect(wrapper.get('[data-testid="message-attachments"]').text()).toContain('附件');
    expect(wrapper.get('[data-testid="attachment-image"] img').attributes('src')).toBe(IMAGE);
    expect(wrapper.get('[data-testid="attachment-file"] a').attributes('href')).toBe(PDF);
    wrapper.unmount();
  });
});
