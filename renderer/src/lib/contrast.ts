/**
 * WCAG 2.x colour contrast (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio): what the theme's
 * test and the browser test measure the console's text against. Colours are #rgb, #rrggbb,
 * #rrggbbaa or rgb()/rgba() strings, as CSS and getComputedStyle write them.
 */

/** Red, green, blue (0–255) and alpha (0–1). */
export type Rgba = readonly [number, number, number, number];

/** The least ratio WCAG's AA level asks of body text (1.4.3). */
export const AA_TEXT = 4.5;

/** Parses a hex or rgb()/rgba() colour; throws on anything else, so a typo cannot pass a test. */
export function parseColor(color: string): Rgba {
  const text = color.trim().toLowerCase();
  const hex = /^#([0-9a-f]{3,8})$/.exec(text)?.[1];
  if (hex && [3, 6, 8].includes(hex.length)) {
    const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
    const byte = (i: number) => parseInt(full.slice(i, i + 2), 16);
    return [byte(0), byte(2), byte(4), full.length === 8 ? byte(6) / 255 : 1];
  }
  const fn = /^rgba?\(([^)]*)\)$/.exec(text)?.[1];
  if (fn) {
    const parts = fn
      .split(/[\s,/]+/)
      .filter(Boolean)
      .map(Number);
    if ((parts.length === 3 || parts.length === 4) && parts.every(Number.isFinite)) {
      return [parts[0]!, parts[1]!, parts[2]!, parts[3] ?? 1];
    }
  }
  throw new Error(`not a colour: ${color}`);
}

/** `top` painted over the opaque `bottom`, as the eye sees a translucent colour. */
export function over(top: string, bottom: string): string {
  const [r, g, b, a] = parseColor(top);
  const [r2, g2, b2] = parseColor(bottom);
  return toHex([r * a + r2 * (1 - a), g * a + g2 * (1 - a), b * a + b2 * (1 - a)]);
}

/** `a` with `weight` (0–1) of `b` mixed in, as Sass's mix(b, a, weight) that Element Plus uses. */
export function mix(a: string, b: string, weight: number): string {
  const x = parseColor(a);
  const y = parseColor(b);
  return toHex([0, 1, 2].map((i) => x[i]! * (1 - weight) + y[i]! * weight));
}

/** The colour as #rrggbb (alpha dropped). */
export function toHex(rgb: readonly number[]): string {
  return `#${rgb
    .slice(0, 3)
    .map((v) => Math.round(v).toString(16).padStart(2, '0'))
    .join('')}`;
}

/** WCAG relative luminance of an opaque colour. */
export function relativeLuminance(color: string): number {
  const [r, g, b] = parseColor(color).map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** The contrast ratio (1–21) of two opaque colours, in either order. */
export function contrastRatio(a: string, b: string): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}
