/**
 * The console's build writes a gzip and a brotli copy beside each of its text files
 * (`index-AbCd1234.js.gz`, `index-AbCd1234.js.br`), compressed once at the highest levels, so
 * that Herald's server hands them out by content negotiation without compressing anything per
 * request (server/api/console-assets/, docs/architecture.md "The console's files").
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

import type { Plugin } from 'vite';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** What is worth compressing: text. Images and fonts the build emits are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|map)$/;

/**
 * Below this a compressed copy saves less than the headers it costs, and a file this small
 * travels in the first round trip either way.
 */
export const MIN_BYTES = 1024;

/** A copy is kept only when it is at most this share of the original. */
const WORTHWHILE = 0.9;

/** The copies' suffixes, in the server's order of preference (smallest first). */
export const ENCODED_SUFFIXES = { br: '.br', gzip: '.gz' } as const;

/** The compressed copies of one file's bytes that are worth keeping. */
export async function compressedCopies(bytes: Buffer): Promise<{ br?: Buffer; gzip?: Buffer }> {
  if (bytes.length < MIN_BYTES) return {};
  const [br, gz] = await Promise.all([
    brotliAsync(bytes, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
    gzipAsync(bytes, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  const keep = (copy: Buffer) => copy.length <= bytes.length * WORTHWHILE;
  return { ...(keep(br) ? { br } : {}), ...(keep(gz) ? { gzip: gz } : {}) };
}

/** Writes the copies of `file` beside it; the names of the files written. */
export async function precompressFile(file: string): Promise<string[]> {
  if (!COMPRESSIBLE.test(file)) return [];
  const copies = await compressedCopies(await readFile(file));
  const written: string[] = [];
  for (const [encoding, bytes] of Object.entries(copies)) {
    const target = file + ENCODED_SUFFIXES[encoding as keyof typeof ENCODED_SUFFIXES];
    await writeFile(target, bytes);
    written.push(target);
  }
  return written;
}

/**
 * The Vite plugin: once the bundle is written, compresses every file of it (chunks, CSS,
 * index.html). Files copied from `public/` are left alone: they are small, and not hashed.
 */
export function precompressAssets(): Plugin {
  return {
    name: 'herald-precompress-assets',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir;
      if (!dir) return;
      await Promise.all(Object.keys(bundle).map((name) => precompressFile(join(dir, name))));
    },
  };
}
