/**
 * Draws Herald's icons without any image tool: a rounded indigo square with a white "H" and an
 * amber notification dot, anti-aliased by supersampling, written as PNG with zlib.
 * Writes build/icon.png (512 px, electron-builder derives the .icns/.ico from it) and
 * build/tray.png + build/tray@2x.png (16 and 32 px; Electron picks @2x on HiDPI screens), the
 * black macOS menu-bar pair build/trayTemplate.png + @2x, and build/unread-overlay.png (Windows).
 * Run: `npx tsx scripts/generate-icons.ts`; the results are committed.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

type Rgba = [number, number, number, number];

const INDIGO: Rgba = [79, 70, 229, 255];
const WHITE: Rgba = [255, 255, 255, 255];
const AMBER: Rgba = [245, 158, 11, 255];
const CLEAR: Rgba = [0, 0, 0, 0];

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** encodePng() writes 8-bit RGBA pixels (row-major) as a PNG file's bytes. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type RGBA
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(
      raw,
      y * (width * 4 + 1) + 1,
    );
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function insideRoundedRect(x: number, y: number, inset: number, radius: number): boolean {
  const lo = inset;
  const hi = 1 - inset;
  if (x < lo || x > hi || y < lo || y > hi) return false;
  const cx = Math.min(Math.max(x, lo + radius), hi - radius);
  const cy = Math.min(Math.max(y, lo + radius), hi - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

function insideRect(x: number, y: number, x0: number, y0: number, x1: number, y1: number): boolean {
  return x >= x0 && x <= x1 && y >= y0 && y <= y1;
}

/** The colour of one point of the design, in unit coordinates. */
function sample(x: number, y: number, inset: number): Rgba {
  const dot = { x: 0.76, y: 0.24, r: 0.12, ring: 0.045 };
  const d2 = (x - dot.x) ** 2 + (y - dot.y) ** 2;
  if (d2 <= dot.r ** 2) return AMBER;
  if (!insideRoundedRect(x, y, inset, 0.2)) return CLEAR;
  // A ring of background colour separates the dot from the letter.
  if (d2 <= (dot.r + dot.ring) ** 2) return INDIGO;
  const letter =
    insideRect(x, y, 0.27, 0.27, 0.4, 0.75) ||
    insideRect(x, y, 0.6, 0.27, 0.73, 0.75) ||
    insideRect(x, y, 0.4, 0.455, 0.6, 0.565);
  return letter ? WHITE : INDIGO;
}

const BLACK: Rgba = [0, 0, 0, 255];
const RED: Rgba = [220, 38, 38, 255];

/**
 * The macOS menu-bar variant: black on transparent, with the letter and the dot cut out of a
 * rounded square. macOS uses only the alpha of a "Template" image and tints it for light and
 * dark menu bars, so colour would be lost there anyway.
 */
function sampleTemplate(x: number, y: number): Rgba {
  const dot = { x: 0.76, y: 0.24, r: 0.14 };
  const d2 = (x - dot.x) ** 2 + (y - dot.y) ** 2;
  if (d2 <= dot.r ** 2) return BLACK;
  if (d2 <= (dot.r + 0.06) ** 2) return CLEAR;
  if (!insideRoundedRect(x, y, 0.06, 0.2)) return CLEAR;
  const letter =
    insideRect(x, y, 0.27, 0.27, 0.4, 0.75) ||
    insideRect(x, y, 0.6, 0.27, 0.73, 0.75) ||
    insideRect(x, y, 0.4, 0.455, 0.6, 0.565);
  return letter ? CLEAR : BLACK;
}

/** The Windows taskbar overlay shown while messages are unread: a red dot with a white rim. */
function sampleOverlay(x: number, y: number): Rgba {
  const d2 = (x - 0.5) ** 2 + (y - 0.5) ** 2;
  if (d2 <= 0.36 ** 2) return RED;
  return d2 <= 0.48 ** 2 ? WHITE : CLEAR;
}

type Design = (x: number, y: number) => Rgba;

/** renderIcon() draws the app design at `size` pixels with 4×4 supersampling. */
export function renderIcon(size: number, inset: number): Uint8Array {
  return renderDesign(size, (x, y) => sample(x, y, inset));
}

function renderDesign(size: number, design: Design): Uint8Array {
  const pixels = new Uint8Array(size * size * 4);
  const grid = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < grid; sy++) {
        for (let sx = 0; sx < grid; sx++) {
          const c = design((px + (sx + 0.5) / grid) / size, (py + (sy + 0.5) / grid) / size);
          // Premultiplied accumulation keeps edges against transparency from darkening.
          r += c[0] * c[3];
          g += c[1] * c[3];
          b += c[2] * c[3];
          a += c[3];
        }
      }
      const i = (py * size + px) * 4;
      pixels[i] = a ? Math.round(r / a) : 0;
      pixels[i + 1] = a ? Math.round(g / a) : 0;
      pixels[i + 2] = a ? Math.round(b / a) : 0;
      pixels[i + 3] = Math.round(a / (grid * grid));
    }
  }
  return pixels;
}

const isMain =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const buildDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'build');
  // The app icon keeps a margin like the macOS icon grid; tray icons use the whole square.
  const outputs: Array<[string, number, Design]> = [
    ['icon.png', 512, (x, y) => sample(x, y, 0.06)],
    ['tray.png', 16, (x, y) => sample(x, y, 0)],
    ['tray@2x.png', 32, (x, y) => sample(x, y, 0)],
    // "Template" in the name is what makes macOS treat the image as a template.
    ['trayTemplate.png', 16, sampleTemplate],
    ['trayTemplate@2x.png', 32, sampleTemplate],
    ['unread-overlay.png', 16, sampleOverlay],
  ];
  for (const [name, size, design] of outputs) {
    writeFileSync(path.join(buildDir, name), encodePng(size, size, renderDesign(size, design)));
    console.log(`wrote build/${name} (${size}×${size})`);
  }
}
