import { describe, expect, it } from 'vitest';

import {
  cacheControlFor,
  CACHE_FOREVER,
  CACHE_REVALIDATE,
} from '../../../../../server/api/console-files/console-files';
import { pickCoding } from '../../../../../server/api/console-files/content-coding';

const BOTH = ['br', 'gzip'] as const;

describe('pickCoding', () => {
  it('pickCoding() prefers br over gzip at the same weight, whatever the header’s order', () => {
    expect(pickCoding('gzip, deflate, br, zstd', BOTH)).toBe('br');
    expect(pickCoding('gzip, deflate, br', BOTH)).toBe('br');
    expect(pickCoding('br, gzip', BOTH)).toBe('br');
  });

  it('pickCoding() follows the weights the client gave', () => {
    expect(pickCoding('gzip;q=0.9, br;q=0.8', BOTH)).toBe('gzip');
    expect(pickCoding('gzip; q=1.0, br; q=0.5', BOTH)).toBe('gzip');
    expect(pickCoding('br;q=0.001, gzip;q=0', BOTH)).toBe('br');
  });

  it('pickCoding() takes only what is offered and accepted', () => {
    expect(pickCoding('br', ['gzip'])).toBeNull();
    expect(pickCoding('gzip', ['gzip'])).toBe('gzip');
    expect(pickCoding('x-gzip', BOTH)).toBe('gzip');
    expect(pickCoding('GZIP', BOTH)).toBe('gzip');
    expect(pickCoding('deflate, zstd', BOTH)).toBeNull();
    expect(pickCoding('br;q=0, gzip;q=0', BOTH)).toBeNull();
    expect(pickCoding('br', [])).toBeNull();
  });

  it('pickCoding() reads * for every coding not named', () => {
    expect(pickCoding('*', BOTH)).toBe('br');
    expect(pickCoding('br;q=0, *', BOTH)).toBe('gzip');
    expect(pickCoding('*;q=0', BOTH)).toBeNull();
  });

  it('pickCoding() gives the plain file when there is no header, or identity is named above every coding', () => {
    expect(pickCoding(undefined, BOTH)).toBeNull();
    expect(pickCoding('', BOTH)).toBeNull();
    expect(pickCoding('identity', BOTH)).toBeNull();
    expect(pickCoding('gzip;q=0.5, identity', BOTH)).toBeNull();
    expect(pickCoding('gzip, identity;q=0.5', BOTH)).toBe('gzip');
    expect(pickCoding('br, identity', BOTH)).toBe('br');
  });

  it('pickCoding() ignores an entry whose weight is not a qvalue, and keeps the first of a repeated name', () => {
    expect(pickCoding('br;q=2, gzip', BOTH)).toBe('gzip');
    expect(pickCoding('br;q=abc, gzip;q=0.5', BOTH)).toBe('gzip');
    expect(pickCoding('br;q=0.1234, gzip;q=0.5', BOTH)).toBe('gzip');
    expect(pickCoding('br;q=0, br', BOTH)).toBeNull();
    expect(pickCoding(' , ;q=1, br', BOTH)).toBe('br');
  });
});

describe('cacheControlFor', () => {
  it('cacheControlFor() keeps for a year only what the build named after its hash, under /assets/', () => {
    expect(cacheControlFor('/assets/index-NBdybkzb.js')).toBe(CACHE_FOREVER);
    expect(cacheControlFor('/assets/http-client-DzrhhpIi.js')).toBe(CACHE_FOREVER);
    expect(cacheControlFor('/assets/_plugin-vue_export-helper-DCdKRjlz.js')).toBe(CACHE_FOREVER);
    expect(cacheControlFor('/assets/index-u_YA3e-T.css')).toBe(CACHE_FOREVER);
    expect(CACHE_FOREVER).toBe('public, max-age=31536000, immutable');
  });

  it('cacheControlFor() revalidates index.html, files outside /assets/ and names without a hash', () => {
    expect(CACHE_REVALIDATE).toBe('no-cache');
    for (const path of [
      '/',
      '/index.html',
      '/favicon.svg',
      '/messages',
      '/index-NBdybkzb.js',
      '/assets/logo.svg',
      '/assets/index-short.js',
      '/assets/sub/index-NBdybkzb.js',
      '/assets/index-NBdybkzb.js.br',
    ]) {
      expect(cacheControlFor(path), path).toBe(CACHE_REVALIDATE);
    }
  });
});
