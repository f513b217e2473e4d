import { onBeforeUnmount, ref, type Ref } from 'vue';

import { contrastRatio, mix, over, parseColor } from './contrast';

/**
 * The console's colours. Element Plus's own palette fails WCAG AA for text (issue 41: its blue
 * links 2.78:1 on white, grey table headers 3.08:1, the red tag 2.61:1, and white on every
 * filled button), so the light theme's tones and greys are darker, and both themes put white
 * text on a fill of its own. Element Plus reads CSS variables, so the palette is applied as
 * variables on <html>; styles.css points the components that carry white text at the fills.
 * TEXT_PAIRS lists what text the console draws on what, and a test holds each pair to AA.
 */

export type ThemeMode = 'light' | 'dark';

export const TONES = ['primary', 'success', 'warning', 'danger', 'info'] as const;
export type Tone = (typeof TONES)[number];

interface Palette {
  /** Each tone as text and links; Element Plus's tints (light-3 … light-9) are mixed from it. */
  tones: Record<Tone, string>;
  /** What the tints mix toward: white in light, the surface in dark (as Element Plus does). */
  tintToward: string;
  /** What dark-2 (links' hover, a pressed button) mixes toward: darker in light, lighter in dark. */
  shadeToward: string;
  /** Under white text (filled buttons, dark tags, the badge, a checked radio button): at rest and hovered. */
  fills: Record<Tone, { rest: string; hover: string }>;
  text: { primary: string; regular: string; secondary: string; placeholder: string };
  /** The page, cards and tables, dialogs and drawers, and a hovered table row. */
  surfaces: { page: string; base: string; overlay: string; hover: string };
}

/** Element Plus's dark theme passes for text on dark surfaces; only its fills are new. */
const PALETTES: Record<ThemeMode, Palette> = {
  light: {
    tones: {
      primary: '#2065c8',
      success: '#347a20',
      warning: '#9c5800',
      danger: '#c92a2a',
      info: '#656d76',
    },
    tintToward: '#ffffff',
    shadeToward: '#000000',
    fills: {
      primary: { rest: '#2065c8', hover: '#1a51a0' },
      success: { rest: '#347a20', hover: '#2a621a' },
      warning: { rest: '#9c5800', hover: '#7d4600' },
      danger: { rest: '#c92a2a', hover: '#a12222' },
      info: { rest: '#656d76', hover: '#51575e' },
    },
    text: { primary: '#303133', regular: '#606266', secondary: '#6b6e74', placeholder: '#70747a' },
    surfaces: { page: '#f2f3f5', base: '#ffffff', overlay: '#ffffff', hover: '#f5f7fa' },
  },
  dark: {
    tones: {
      primary: '#409eff',
      success: '#67c23a',
      warning: '#e6a23c',
      danger: '#f56c6c',
      info: '#909399',
    },
    tintToward: '#141414',
    shadeToward: '#ffffff',
    fills: {
      primary: { rest: '#3272b4', hover: '#2d6198' },
      success: { rest: '#467c2b', hover: '#3c6826' },
      warning: { rest: '#92692c', hover: '#795827' },
      danger: { rest: '#b65353', hover: '#9b4949' },
      info: { rest: '#707276', hover: '#616366' },
    },
    text: { primary: '#e5eaf3', regular: '#cfd3dc', secondary: '#a3a6ad', placeholder: '#8d9095' },
    surfaces: { page: '#0a0a0a', base: '#141414', overlay: '#1d1e1f', hover: '#262727' },
  },
};

/** Element Plus's tints of a tone, by suffix, and how much of `tintToward` each holds. */
const TINTS = { 'light-3': 0.3, 'light-5': 0.5, 'light-7': 0.7, 'light-8': 0.8, 'light-9': 0.9 };

/** Every CSS variable the theme sets on <html> in `mode`, with its value. */
export function themeVariables(mode: ThemeMode): Record<string, string> {
  const p = PALETTES[mode];
  const vars: Record<string, string> = {};
  for (const tone of TONES) {
    const base = p.tones[tone];
    // Element Plus calls danger "error" too (el-alert type="error", ElMessage.error).
    for (const name of tone === 'danger' ? ['danger', 'error'] : [tone]) {
      vars[`--el-color-${name}`] = base;
      vars[`--el-color-${name}-rgb`] = parseColor(base).slice(0, 3).join(', ');
      for (const [suffix, weight] of Object.entries(TINTS)) {
        vars[`--el-color-${name}-${suffix}`] = mix(base, p.tintToward, weight);
      }
      vars[`--el-color-${name}-dark-2`] = mix(base, p.shadeToward, 0.2);
      vars[`--herald-fill-${name}`] = p.fills[tone].rest;
      vars[`--herald-fill-${name}-hover`] = p.fills[tone].hover;
    }
  }
  // Paler than light-9, so that secondary text (a message's preview) keeps AA on it.
  vars['--herald-urgent-bg'] = mix(p.tones.danger, p.tintToward, 0.94);
  vars['--el-text-color-primary'] = p.text.primary;
  vars['--el-text-color-regular'] = p.text.regular;
  vars['--el-text-color-secondary'] = p.text.secondary;
  vars['--el-text-color-placeholder'] = p.text.placeholder;
  vars['--el-bg-color-page'] = p.surfaces.page;
  vars['--el-bg-color'] = p.surfaces.base;
  vars['--el-bg-color-overlay'] = p.surfaces.overlay;
  vars['--el-fill-color-light'] = p.surfaces.hover;
  return vars;
}

/** Sets the palette of `mode` on `root` (inline, so it wins over Element Plus's sheets). */
export function applyTheme(root: HTMLElement, mode: ThemeMode): void {
  for (const [name, value] of Object.entries(themeVariables(mode))) {
    root.style.setProperty(name, value);
  }
}

/** A colour of the palette: a variable themeVariables() sets, or plain white. */
type Colour = `--${string}` | 'white';

/**
 * The text the console draws and what it draws it on, in both themes. Disabled controls are
 * left out (WCAG exempts them); translucent colours are painted over their surface first.
 */
export const TEXT_PAIRS: readonly { what: string; text: Colour; on: Colour }[] = [
  ...(['primary', 'regular', 'secondary'] as const).flatMap((level) =>
    (
      [
        '--el-bg-color-page',
        '--el-bg-color',
        '--el-bg-color-overlay',
        '--el-fill-color-light',
      ] as const
    ).map((on) => ({ what: `${level} text`, text: `--el-text-color-${level}` as Colour, on })),
  ),
  { what: 'table header', text: '--el-text-color-secondary', on: '--el-bg-color' },
  { what: 'placeholder', text: '--el-text-color-placeholder', on: '--el-bg-color' },
  {
    what: 'placeholder in a dialog',
    text: '--el-text-color-placeholder',
    on: '--el-bg-color-overlay',
  },
  // An urgent message's row in the reader and the send log (styles.css, .is-urgent).
  ...(['primary', 'regular', 'secondary'] as const).map((level) => ({
    what: `${level} text in an urgent row`,
    text: `--el-text-color-${level}` as Colour,
    on: '--herald-urgent-bg' as Colour,
  })),
  { what: 'link in an urgent row', text: '--el-color-primary', on: '--herald-urgent-bg' },
  { what: 'urgent title', text: '--el-color-danger', on: '--herald-urgent-bg' },
  ...TONES.flatMap((tone) => [
    { what: `${tone} link`, text: `--el-color-${tone}` as Colour, on: '--el-bg-color' as Colour },
    {
      what: `${tone} link in a dialog`,
      text: `--el-color-${tone}` as Colour,
      on: '--el-bg-color-overlay' as Colour,
    },
    {
      what: `${tone} link on the page`,
      text: `--el-color-${tone}` as Colour,
      on: '--el-bg-color-page' as Colour,
    },
    {
      what: `${tone} link in a hovered row`,
      text: `--el-color-${tone}` as Colour,
      on: '--el-fill-color-light' as Colour,
    },
    {
      what: `${tone} link hovered`,
      text: `--el-color-${tone}-dark-2` as Colour,
      on: '--el-bg-color' as Colour,
    },
    // Light tags, alerts, toasts, plain buttons and the sidebar's current page.
    {
      what: `${tone} tag`,
      text: `--el-color-${tone}` as Colour,
      on: `--el-color-${tone}-light-9` as Colour,
    },
    {
      what: `${tone} filled button`,
      text: 'white' as Colour,
      on: `--herald-fill-${tone}` as Colour,
    },
    {
      what: `${tone} filled button hovered`,
      text: 'white' as Colour,
      on: `--herald-fill-${tone}-hover` as Colour,
    },
  ]),
];

/** Each pair's contrast ratio in `mode`. */
export function textContrasts(mode: ThemeMode): { what: string; ratio: number }[] {
  const vars = themeVariables(mode);
  const colour = (c: Colour) => {
    const value = c === 'white' ? '#ffffff' : vars[c];
    if (!value) throw new Error(`${c} is not a colour of the theme`);
    return value;
  };
  return TEXT_PAIRS.map(({ what, text, on }) => {
    const background = colour(on);
    return { what, ratio: contrastRatio(over(colour(text), background), background) };
  });
}

/**
 * Follows the system's light/dark preference: toggles Element Plus's `dark` class on <html>
 * (its dark CSS variables hang off that class) and applies the matching palette. Returns a
 * function that stops following.
 */
export function followSystemTheme(root: HTMLElement = document.documentElement): () => void {
  if (typeof window.matchMedia !== 'function') {
    applyTheme(root, 'light');
    return () => {};
  }
  const query = window.matchMedia('(prefers-color-scheme: dark)');
  const apply = () => {
    root.classList.toggle('dark', query.matches);
    applyTheme(root, query.matches ? 'dark' : 'light');
  };
  apply();
  query.addEventListener('change', apply);
  return () => query.removeEventListener('change', apply);
}

/** Whether the dark theme is showing now. */
export function isDark(root: HTMLElement = document.documentElement): boolean {
  return root.classList.contains('dark');
}

/** A ref that is true while the system prefers the dark theme (for charts that need a theme). */
export function useSystemDark(): Ref<boolean> {
  const dark = ref(false);
  if (typeof window === 'undefined' || typeof window.matchMedia !== 'function') return dark;
  const query = window.matchMedia('(prefers-color-scheme: dark)');
  const update = () => {
    dark.value = query.matches;
  };
  update();
  query.addEventListener('change', update);
  onBeforeUnmount(() => query.removeEventListener('change', update));
  return dark;
}
