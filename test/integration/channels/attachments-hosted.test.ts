import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PDF_BYTES, PNG_BYTES } from '../../fixtures/peers/attachment-files';
import { startTestHerald, textInstances, type TestHerald } from '../../helpers/herald';

/*
 * The hosted reader's files (issue 43 §2): a message sent with files lists them in the
 * console's message detail (images to show inline, other files to download), at paths Herald
 * serves itself. Hosted messages are stored when the send is accepted, which is the path here.
 */
describe('hosted messages with files', () => {
  let herald: TestHerald;
  let token: string;

  beforeAll(async () => {
    herald = await startTestHerald();
    const hosted = await herald.createChannel('hosted', {});
    // With a share link, so the public preview can be read too.
    const instances = textInstances([hosted.id]).map((i) => ({ ...i, publicLink: true }));
    token = (await herald.createTemplate({ text: 'files' }, instances)).token;
  });

  afterAll(async () => {
    await herald.close(true);
  });

  const send = async (title: string, files: Array<[Buffer, string]>) => {
    const body = new FormData();
    body.set('payload_json', JSON.stringify({ token, title }));
    for (const [bytes, name] of files) body.append('files[]', new Blob([bytes]), name);
    const res = await fetch(`${herald.url}/api/v2/message/send`, { method: 'POST', body });
    const answer = (await res.json()) as { code: number; data: { hostMessageUrl: string } };
    expect(answer.code).toBe(200);
    return answer.data.hostMessageUrl;
  };
  const detailOf = async (title: string) => {
    const { items } = await herald.console.ok('GET', `/messages?q=${encodeURIComponent(title)}`);
    return herald.console.ok('GET', `/messages/${(items as Array<{ id: number }>)[0].id}`);
  };

  it('the message detail and its share link list the files, the image inline, each served by Herald', async () => {
    const shared = await send('with files', [
      [PNG_BYTES, 'chart.png'],
      [PDF_BYTES, 'report.pdf'],
    ]);
    const detail = await herald.waitFor(async () => {
      const d = await detailOf('with files').catch(() => undefined);
      return d?.attachments?.length ? d : undefined;
    });
    expect(detail.attachments).toEqual([
      {
        name: 'chart.png',
        type: 'image/png',
        size: PNG_BYTES.length,
        inline: true,
        url: expect.stringMatching(/^\/api\/files\/[A-Za-z0-9_-]{24}\/chart\.png$/),
      },
      {
        name: 'report.pdf',
        type: expect.any(String),
        size: PDF_BYTES.length,
        inline: false,
        url: expect.stringMatching(/^\/api\/files\/[A-Za-z0-9_-]{24}\/report\.pdf$/),
      },
    ]);
    // A path on Herald's own origin: what the reader's img-src 'self' lets load.
    const image = await fetch(`${herald.url}${detail.attachments[0].url}`);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG_BYTES);
    // The content is left as sent: the reader shows the files from the list.
    expect(detail.content).toBe('files');
    // The share link's page lists the same files.
    const preview = await fetch(shared.replace('/preview/', '/api/public/preview/'));
    const opened = (await preview.json()) as { data: { attachments: unknown } };
    expect(opened.data.attachments).toEqual(detail.attachments);
  });

  it('a message sent without files has an empty list', async () => {
    await send('no files', []);
    const detail = await herald.waitFor(() => detailOf('no files').catch(() => undefined));
    expect(detail.attachments).toEqual([]);
  });
});
