import { describe, expect, it } from 'vitest';

import { sniffImageType } from '../../../../../server/features/image-proxy/image-sniff';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(
    parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))),
  );

describe('sniffImageType()', () => {
  it.each([
    ['image/png', bytes([0x89], 'PNG\r\n\x1a\n', 'rest')],
    ['image/jpeg', bytes([0xff, 0xd8, 0xff, 0xe0], 'rest')],
    ['image/gif', bytes('GIF89a', 'rest')],
    ['image/gif', bytes('GIF87a', 'rest')],
    ['image/webp', bytes('RIFF', [1, 2, 3, 4], 'WEBPVP8 ')],
    ['image/avif', bytes([0, 0, 0, 0x1c], 'ftypavif', 'rest')],
    ['image/bmp', bytes('BM', Array<number>(20).fill(0))],
    ['image/x-icon', bytes([0, 0, 1, 0, 1, 0], 'rest')],
  ])('sniffImageType() reads %s from the first bytes', (type, body) => {
    expect(sniffImageType(body)).toBe(type);
  });

  it.each([
    ['SVG', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
    ['SVG with an XML prolog', '<?xml version="1.0"?><svg></svg>'],
    ['HTML', '<!doctype html><html><script>alert(1)</script>'],
    ['text', 'GIF8 is not a GIF'],
    ['an HEIC (ftyp, another brand)', '\x00\x00\x00\x18ftypheic'],
    ['nothing', ''],
  ])('sniffImageType() passes on no %s', (_what, text) => {
    expect(sniffImageType(Buffer.from(text, 'latin1'))).toBeNull();
  });
});
