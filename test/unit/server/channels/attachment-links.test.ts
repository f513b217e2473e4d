import { describe, expect, it } from 'vitest';

import {
  appendAttachmentLinks,
  attachmentLink,
  attachmentLinks,
  readableSize,
  withAttachmentLinks,
  type LinkedAttachment,
} from '../../../../server/channels/attachment-links';

const image: LinkedAttachment = {
  filename: 'chart [v2].png',
  mime: 'image/png',
  size: 2048,
  url: 'https://herald.example/api/files/abc/chart%20(v2).png',
  inline: true,
};
const pdf: LinkedAttachment = {
  filename: 'r<e>port "1".pdf',
  mime: 'application/pdf',
  size: 3 * 1024 * 1024,
  url: 'https://herald.example/api/files/def/report.pdf',
  inline: false,
};

describe('attachment links', () => {
  it('readableSize() counts bytes, then KB, MB and GB of 1024', () => {
    expect(readableSize(0)).toBe('0 B');
    expect(readableSize(1023)).toBe('1023 B');
    expect(readableSize(1536)).toBe('1.5 KB');
    expect(readableSize(20 * 1024)).toBe('20 KB');
    expect(readableSize(3 * 1024 * 1024)).toBe('3.0 MB');
    expect(readableSize(5 * 1024 ** 3)).toBe('5.0 GB');
  });

  it('attachmentLink() writes a text line with name, size and URL', () => {
    expect(attachmentLink(pdf, 'text', { images: true })).toBe(
      `r<e>port "1".pdf (3.0 MB): ${pdf.url}`,
    );
  });

  it('attachmentLink() makes an image a Markdown image only where images are allowed', () => {
    expect(attachmentLink(image, 'markdown', { images: true })).toBe(
      '![chart \\[v2\\].png](https://herald.example/api/files/abc/chart%20%28v2%29.png)',
    );
    expect(attachmentLink(image, 'markdown', { images: false })).toBe(
      '[chart \\[v2\\].png](https://herald.example/api/files/abc/chart%20%28v2%29.png) (2.0 KB)',
    );
  });

  it('attachmentLink() never shows a file that is not an inline image as an image', () => {
    expect(attachmentLink(pdf, 'markdown', { images: true })).toBe(
      `[r\\<e\\>port "1".pdf](${pdf.url}) (3.0 MB)`,
    );
    expect(attachmentLink(pdf, 'html', { images: true })).toBe(
      `<a href="${pdf.url}">r&lt;e&gt;port &quot;1&quot;.pdf</a> (3.0 MB)`,
    );
  });

  it('attachmentLink() escapes an HTML image’s attributes', () => {
    expect(attachmentLink({ ...image, filename: '"><script>' }, 'html', { images: true })).toBe(
      `<img src="${image.url}" alt="&quot;&gt;&lt;script&gt;">`,
    );
  });

  it('attachmentLinks() separates Markdown files by blank lines and HTML files by <br>', () => {
    expect(attachmentLinks([image, pdf], 'markdown', { images: false }).split('\n\n')).toHaveLength(
      2,
    );
    expect(attachmentLinks([image, pdf], 'html', { images: false })).toMatch(
      /^<p><a href=.*<\/a> \(2\.0 KB\)<br><a href=.*<\/a> \(3\.0 MB\)<\/p>$/,
    );
    expect(attachmentLinks([image, pdf], 'text', { images: false }).split('\n')).toHaveLength(2);
    expect(attachmentLinks([], 'text', { images: false })).toBe('');
    expect(attachmentLinks(undefined, 'text', { images: false })).toBe('');
  });

  it('appendAttachmentLinks() follows the content after a blank line, or stands alone', () => {
    expect(appendAttachmentLinks('disk full', [pdf], 'text', { images: false })).toBe(
      `disk full\n\nr<e>port "1".pdf (3.0 MB): ${pdf.url}`,
    );
    expect(appendAttachmentLinks('  ', [pdf], 'text', { images: false })).toBe(
      `r<e>port "1".pdf (3.0 MB): ${pdf.url}`,
    );
    expect(appendAttachmentLinks('disk full', [], 'text', { images: false })).toBe('disk full');
  });

  it('withAttachmentLinks() moves the files into the content and leaves none to add twice', () => {
    const message = { content: 'disk', contentType: 'text' as const, attachments: [pdf] as never };
    const linked = withAttachmentLinks(message, { images: false });
    expect(linked.content).toBe(`disk\n\nr<e>port "1".pdf (3.0 MB): ${pdf.url}`);
    expect(linked.attachments).toEqual([]);
    expect(withAttachmentLinks({ ...message, attachments: [] }, { images: false })).toEqual({
      ...message,
      attachments: [],
    });
  });

  it('withAttachmentLinks() links only the files given when some are carried otherwise', () => {
    const message = { content: 'disk', contentType: 'text' as const, attachments: [] };
    expect(withAttachmentLinks(message, { images: false }, [image]).content).toBe(
      `disk\n\nchart [v2].png (2.0 KB): ${image.url}`,
    );
  });
});
