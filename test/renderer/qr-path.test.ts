import jsQR from 'jsqr';
import { describe, expect, it } from 'vitest';

import { qrPath } from '../../renderer/src/lib/qr-path';

/**
 * The path as pixels, the way the page draws it: each `M x y h w v 1 h -w z` a dark rectangle,
 * on white with the four-module quiet zone, `scale` pixels a module.
 */
function rasterize({ size, d }: { size: number; d: string }, scale = 4) {
  const side = (size + 8) * scale;
  const rgba = new Uint8ClampedArray(side * side * 4).fill(255);
  const runs = [...d.matchAll(/M(\d+) (\d+)h(\d+)v1h-(\d+)z/g)];
  expect(runs.map((r) => r[0]).join('')).toBe(d);
  for (const [, x, y, w, back] of runs) {
    expect(back).toBe(w);
    for (let py = 0; py < scale; py++) {
      for (let px = 0; px < Number(w) * scale; px++) {
        const at = (((Number(y) + 4) * scale + py) * side + (Number(x) + 4) * scale + px) * 4;
        rgba.fill(0, at, at + 3);
      }
    }
  }
  return { rgba, side };
}

describe('qrPath', () => {
  it('draws a code a QR reader reads back as the setup link', () => {
    const link =
      'otpauth://totp/Herald%3Areader?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Herald&algorithm=SHA1&digits=6&period=30';
    const path = qrPath(link);
    const { rgba, side } = rasterize(path);
    expect(jsQR(rgba, side, side)?.data).toBe(link);
  });

  it('is square, a QR version’s size, each row’s dark runs one rectangle each', () => {
    const { size, d } = qrPath('otpauth://totp/x?secret=AAAA');
    // Versions grow by four modules from 21.
    expect((size - 21) % 4).toBe(0);
    expect(d).toMatch(/^M0 0h7v1h-7z/);
    // No two rectangles of a row touch: a run is never split.
    const runs = [...d.matchAll(/M(\d+) (\d+)h(\d+)/g)].map(([, x, y, w]) => [+x, +y, +w]);
    for (let i = 1; i < runs.length; i++) {
      const [x, y] = runs[i];
      const [px, py, pw] = runs[i - 1];
      if (y === py) expect(x).toBeGreaterThan(px + pw);
    }
  });
});
