import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { ImageCache } from '../../../../../server/features/image-proxy/image-cache';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A cache of `maxBytes` in a fresh folder, on a clock the test moves by hand. */
function cacheOf(maxBytes: number, dir = mkdtempSync(join(tmpdir(), 'herald-image-cache-'))) {
  dirs.push(dir);
  const clock = { now: 1_000_000 };
  const cache = new ImageCache(dir, maxBytes, () => clock.now);
  return { cache, clock, dir };
}

const image = (bytes: number) => ({ type: 'image/png' as const, body: Buffer.alloc(bytes, 7) });
/** What an entry takes on disk: the type line, then the bytes. */
const onDisk = (bytes: number) => 'image/png\n'.length + bytes;

describe('ImageCache', () => {
  it('ImageCache gives back what was put, type and bytes', () => {
    const { cache } = cacheOf(10_000);
    cache.put('https://a.example/x.png', image(100));

    expect(cache.get('https://a.example/x.png')).toEqual(image(100));
    expect(cache.get('https://a.example/other.png')).toBeNull();
  });

  it('ImageCache stays within its size, dropping the least recently used first', () => {
    const { cache, clock, dir } = cacheOf(onDisk(100) * 3);
    for (const name of ['a', 'b', 'c']) {
      clock.now += 1000;
      cache.put(`https://x.example/${name}`, image(100));
    }
    clock.now += 1000;
    expect(cache.get('https://x.example/a')).not.toBeNull();

    clock.now += 1000;
    cache.put('https://x.example/d', image(100));

    // b was used least recently (a was read after it).
    expect(cache.get('https://x.example/b')).toBeNull();
    for (const name of ['a', 'c', 'd'])
      expect(cache.get(`https://x.example/${name}`)).not.toBeNull();
    expect(cache.size()).toBe(onDisk(100) * 3);
    expect(readdirSync(dir)).toHaveLength(3);
  });

  it('ImageCache makes its folder only for the first image kept', () => {
    const parent = mkdtempSync(join(tmpdir(), 'herald-image-cache-'));
    const { cache } = cacheOf(1000, join(parent, 'image-cache'));
    dirs.push(parent);
    expect(readdirSync(parent)).toEqual([]);

    cache.put('https://x.example/a', image(10));

    expect(readdirSync(parent)).toEqual(['image-cache']);
  });

  it('ImageCache keeps nothing larger than itself', () => {
    const { cache } = cacheOf(500);
    cache.put('https://x.example/small', image(100));
    cache.put('https://x.example/huge', image(1000));

    expect(cache.get('https://x.example/huge')).toBeNull();
    expect(cache.get('https://x.example/small')).not.toBeNull();
  });

  it('ImageCache finds its files again after a restart, and their bound', () => {
    const first = cacheOf(onDisk(100) * 2);
    first.cache.put('https://x.example/a', image(100));
    first.cache.put('https://x.example/b', image(100));

    const again = new ImageCache(first.dir, onDisk(100), () => first.clock.now);

    expect(again.size()).toBe(onDisk(100));
    expect(readdirSync(first.dir)).toHaveLength(1);
  });
});
