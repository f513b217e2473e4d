/**
 * The image types the proxy passes on, told by their first bytes, never by the remote server's
 * Content-Type: a server may call anything an image. SVG is never one of them (it can carry
 * script), nor is anything that is text.
 */
export type ProxiedImageType =
  | 'image/png'
  | 'image/jpeg'
  | 'image/gif'
  | 'image/webp'
  | 'image/avif'
  | 'image/bmp'
  | 'image/x-icon';

const startsWith = (bytes: Buffer, signature: number[], at = 0): boolean =>
  bytes.length >= at + signature.length && signature.every((b, i) => bytes[at + i] === b);

const ascii = (bytes: Buffer, from: number, to: number): string =>
  bytes.subarray(from, to).toString('latin1');

/** The image type of `bytes`, or null when they are not one the proxy passes on. */
export function sniffImageType(bytes: Buffer): ProxiedImageType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  const gif = ascii(bytes, 0, 6);
  if (gif === 'GIF87a' || gif === 'GIF89a') return 'image/gif';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'image/webp';
  if (ascii(bytes, 4, 8) === 'ftyp') {
    const brand = ascii(bytes, 8, 12);
    if (brand === 'avif' || brand === 'avis') return 'image/avif';
  }
  if (ascii(bytes, 0, 2) === 'BM' && bytes.length >= 14) return 'image/bmp';
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00]) && bytes.length >= 6 && bytes[4]! > 0) {
    return 'image/x-icon';
  }
  return null;
}
