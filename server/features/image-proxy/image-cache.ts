import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

import type { ProxiedImageType } from './image-sniff';

/** The cache folder's name inside the data folder. */
export const IMAGE_CACHE_FOLDER = 'image-cache';

export interface CachedImage {
  type: ProxiedImageType;
  body: Buffer;
}

interface Entry {
  file: string;
  bytes: number;
  usedMs: number;
}

/**
 * Proxied images kept in the data folder, so reading a message again does not reach its
 * sender again. One file per remote address (named by its SHA-256; the first line is the
 * type), at most `maxBytes` in all: past that the least recently used go first (a hit touches
 * its file's time). The index is kept in memory and rebuilt from the folder at start, so
 * restarts keep the cache and its bound.
 */
export class ImageCache {
  private readonly entries = new Map<string, Entry>();
  private total = 0;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly nowMs: () => number,
  ) {
    // Made by the first image kept: a Herald whose readers never show one leaves no folder.
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (!/^[0-9a-f]{64}$/.test(name)) continue;
      const stat = statSync(join(dir, name));
      this.remember(name, stat.size, stat.mtimeMs);
    }
    this.evict();
  }

  get(url: string): CachedImage | null {
    const name = keyOf(url);
    const entry = this.entries.get(name);
    if (!entry) return null;
    let raw: Buffer;
    try {
      raw = readFileSync(entry.file);
    } catch {
      this.forget(name);
      return null;
    }
    const newline = raw.indexOf(0x0a);
    if (newline < 0) {
      this.drop(name);
      return null;
    }
    const now = this.nowMs();
    entry.usedMs = now;
    try {
      utimesSync(entry.file, now / 1000, now / 1000);
    } catch {
      // Only the order of eviction after a restart depends on it.
    }
    return {
      type: raw.subarray(0, newline).toString('latin1') as ProxiedImageType,
      body: raw.subarray(newline + 1),
    };
  }

  put(url: string, image: CachedImage): void {
    // An image larger than the whole cache would only push everything else out.
    if (image.body.length > this.maxBytes) return;
    const name = keyOf(url);
    const file = join(this.dir, name);
    const raw = Buffer.concat([Buffer.from(`${image.type}\n`, 'latin1'), image.body]);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, raw, { mode: 0o600 });
    this.forget(name);
    this.remember(name, raw.length, this.nowMs());
    this.evict();
  }

  /** Bytes the cache holds now. */
  size(): number {
    return this.total;
  }

  private remember(name: string, bytes: number, usedMs: number): void {
    this.entries.set(name, { file: join(this.dir, name), bytes, usedMs });
    this.total += bytes;
  }

  private forget(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.entries.delete(name);
    this.total -= entry.bytes;
  }

  private drop(name: string): void {
    const entry = this.entries.get(name);
    this.forget(name);
    if (entry) rmSync(entry.file, { force: true });
  }

  private evict(): void {
    if (this.total <= this.maxBytes) return;
    const oldestFirst = [...this.entries.entries()].sort((a, b) => a[1].usedMs - b[1].usedMs);
    for (const [name] of oldestFirst) {
      if (this.total <= this.maxBytes) break;
      this.drop(name);
    }
  }
}

const keyOf = (url: string): string => createHash('sha256').update(url).digest('hex');
