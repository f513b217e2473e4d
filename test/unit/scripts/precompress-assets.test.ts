import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { compressedCopies, MIN_BYTES, precompressFile } from '../../../scripts/precompress-assets';

/** Text that compresses the way a bundle does: long and repetitive. */
const SCRIPT = Buffer.from(
  Array.from({ length: 400 }, (_, i) => `export const value${i} = "herald ${i % 7}";\n`).join(''),
);

describe('precompress-assets', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'herald-precompress-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('compressedCopies() gives a brotli and a gzip copy that decode to the same bytes', async () => {
    const copies = await compressedCopies(SCRIPT);
    expect(brotliDecompressSync(copies.br!).equals(SCRIPT)).toBe(true);
    expect(gunzipSync(copies.gzip!).equals(SCRIPT)).toBe(true);
    expect(copies.br!.length).toBeLessThan(copies.gzip!.length);
  });

  it('compressedCopies() keeps nothing for a small file, nor a copy that saves too little', async () => {
    expect(await compressedCopies(SCRIPT.subarray(0, MIN_BYTES - 1))).toEqual({});
    expect(await compressedCopies(randomBytes(8192))).toEqual({});
  });

  it('precompressFile() writes .br and .gz beside a script, and nothing for an image', async () => {
    const script = join(dir, 'index-AbCd1234.js');
    writeFileSync(script, SCRIPT);
    const png = join(dir, 'logo-AbCd1234.png');
    writeFileSync(png, SCRIPT);

    expect((await precompressFile(script)).sort()).toEqual([`${script}.br`, `${script}.gz`]);
    expect(brotliDecompressSync(readFileSync(`${script}.br`)).equals(SCRIPT)).toBe(true);
    expect(gunzipSync(readFileSync(`${script}.gz`)).equals(SCRIPT)).toBe(true);
    expect(await precompressFile(png)).toEqual([]);
  });
});
