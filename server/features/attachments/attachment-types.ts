import { extname } from 'node:path';

/**
 * What a stored file is, decided from its bytes (file-type), never from its name or the
 * sender's word: only these image types are shown inline; everything else, HTML, SVG, XML and
 * PDF included, is served as a download, since a file shown by the browser on Herald's origin
 * could run script there.
 */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
]);

export const UNKNOWN_TYPE = 'application/octet-stream';

/** The type file-type reads in the first bytes, or application/octet-stream. */
export async function sniffType(path: string): Promise<string> {
  // file-type is ESM-only; loaded on first use so nothing pays for it until a file arrives.
  const { fileTypeFromFile } = await import('file-type');
  const found = await fileTypeFromFile(path);
  return found?.mime ?? UNKNOWN_TYPE;
}

/**
 * A file name safe to store, show and put in a URL path and a Content-Disposition: the last
 * path segment only, no control characters or quotes, at most 120 characters (the extension
 * kept), never empty.
 */
export function safeFilename(raw: string | null | undefined, fallback = 'file'): string {
  const last = (raw ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = last
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f"<>:|?*%]/g, '_')
    .replace(/^[.\s]+/, '')
    .trim();
  if (cleaned === '') return fallback;
  if (cleaned.length <= 120) return cleaned;
  const ext = extname(cleaned).slice(0, 20);
  return cleaned.slice(0, 120 - ext.length) + ext;
}
