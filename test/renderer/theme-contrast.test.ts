import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { AA_TEXT, contrastRatio, over, parseColor } from '../../renderer/src/lib/contrast';
import {
  applyTheme,
  followSystemTheme,
  TEXT_PAIRS,
  textContrasts,
  themeVariables,
  TONES,
} from '../../renderer/src/lib/theme';

const STYLES = readFileSync(join(__dirname, '../../renderer/src/styles.css'), 'utf8');

describe('contrastRatio()', () => {
  it('contrastRatio() is 21 for black on white and 1 for a colour on itself', () => {
    expect(contrastRatio('#000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#2065c8', '#2065c8')).toBe(1);
  });

  it('contrastRatio() measures Element Plus’s own colours as the issue did', () => {
    // Issue 41 §8: action links, table headers, the red "Admin" tag.
    expect(contrastRatio('#409eff', '#ffffff')).toBeCloseTo(2.78, 2);
    expect(contrastRatio('#909399', '#ffffff')).toBeCloseTo(3.08, 2);
    expect(contrastRatio('#f56c6c', '#fef0f0')).toBeCloseTo(2.61, 2);
  });

  it('parseColor() reads hex and rgb() forms and refuses anything else', () => {
    expect(parseColor('#fff')).toEqual([255, 255, 255, 1]);
    expect(parseColor('rgb(32, 101, 200)')).toEqual([32, 101, 200, 1]);
    expect(parseColor('rgba(0, 0, 0, 0.5)')).toEqual([0, 0, 0, 0.5]);
    expect(() => parseColor('blue')).toThrow('not a colour');
    expect(() => parseColor('#12345')).toThrow('not a colour');
  });

  it('over() paints a translucent colour over its background', () => {
    expect(over('rgba(0, 0, 0, 0.5)', '#ffffff')).toBe('#808080');
    expect(over('#2065c8', '#000000')).toBe('#2065c8');
  });
});

describe.each(['light', 'dark'] as const)('the %s theme', (mode) => {
  it.each(textContrasts(mode).map((c) => [c.what, c.ratio] as const))(
    '%s reaches WCAG AA (4.5:1)',
    (_what, ratio) => {
      expect(ratio).toBeGreaterThanOrEqual(AA_TEXT);
    },
  );

  it('sets every colour the pairs name, as a colour', () => {
    const vars = themeVariables(mode);
    for (const { text, on } of TEXT_PAIRS) {
      for (const name of [text, on].filter((c) => c !== 'white')) {
        expect(vars[name], name).toBeDefined();
        expect(() => parseColor(vars[name]!)).not.toThrow();
      }
    }
  });
});

describe('the pairs and the stylesheet', () => {
  it('TEXT_PAIRS covers what the issue measured: links, table headers, tags, filled buttons', () => {
    const what = TEXT_PAIRS.map((p) => p.what);
    expect(what).toContain('table header');
    for (const tone of TONES) {
      expect(what).toContain(`${tone} link`);
      expect(what).toContain(`${tone} tag`);
      expect(what).toContain(`${tone} filled button`);
    }
  });

  it('every theme variable styles.css reads is one the theme sets', () => {
    const set = new Set(Object.keys(themeVariables('light')));
    const read = [...STYLES.matchAll(/var\((--herald-fill-[a-z-]+)\)/g)].map((m) => m[1]!);
    expect(read.length).toBeGreaterThan(5);
    for (const name of read) expect(set, name).toContain(name);
  });

  it('the font stack names Latin fonts before the CJK ones', () => {
    const stack = /--el-font-family:([^;]+);/.exec(STYLES)?.[1] ?? '';
    const at = (font: string) => stack.indexOf(font);
    expect(at('Arial')).toBeGreaterThan(-1);
    expect(at('Noto Sans CJK SC')).toBeGreaterThan(-1);
    for (const latin of ['Arial', 'Liberation Sans', 'Helvetica Neue']) {
      for (const cjk of ['Noto Sans CJK SC', 'PingFang SC', 'Microsoft YaHei']) {
        expect(at(latin), `${latin} before ${cjk}`).toBeLessThan(at(cjk));
      }
    }
  });
});

describe('applyTheme() and followSystemTheme()', () => {
  const root = document.documentElement;
  const original = window.matchMedia;
  afterEach(() => {
    window.matchMedia = original;
    root.removeAttribute('style');
    root.classList.remove('dark');
  });

  it('applyTheme() sets the palette on the element', () => {
    applyTheme(root, 'light');
    expect(root.style.getPropertyValue('--el-color-primary')).toBe('#2065c8');
    applyTheme(root, 'dark');
    expect(root.style.getPropertyValue('--el-color-primary')).toBe('#409eff');
    expect(root.style.getPropertyValue('--herald-fill-primary')).toBe(
      themeVariables('dark')['--herald-fill-primary'],
    );
  });

  it('followSystemTheme() switches the class and the palette with the system', () => {
    let dark = false;
    const listeners: (() => void)[] = [];
    window.matchMedia = ((query: string) => ({
      media: query,
      get matches() {
        return dark;
      },
      addEventListener: (_: string, fn: () => void) => listeners.push(fn),
      removeEventListener: () => undefined,
    })) as unknown as typeof window.matchMedia;

    const stop = followSystemTheme(root);
    expect(root.classList.contains('dark')).toBe(false);
    expect(root.style.getPropertyValue('--el-text-color-secondary')).toBe('#6b6e74');
    dark = true;
    listeners.forEach((fn) => fn());
    expect(root.classList.contains('dark')).toBe(true);
    expect(root.style.getPropertyValue('--el-text-color-secondary')).toBe('#a3a6ad');
    stop();
  });
});
