import { createI18n } from 'vue-i18n';

import en from './en';
import zhCN from './zh-CN';

export const LOCALES = ['zh-CN', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

/** Where the chosen language is remembered between visits. */
export const LOCALE_STORAGE_KEY = 'herald.locale';

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * The language to start in: the one the user chose before, else the first system language
 * that is Chinese or English (any zh-* counts as Chinese), else English.
 */
export function detectLocale(stored: string | null, languages: readonly string[]): Locale {
  if (isLocale(stored)) return stored;
  for (const lang of languages) {
    const lower = lang.toLowerCase();
    if (lower.startsWith('zh')) return 'zh-CN';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

function readStoredLocale(): string | null {
  try {
    return localStorage.getItem(LOCALE_STORAGE_KEY);
  } catch {
    return null;
  }
}

function systemLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

/** Creates the app's i18n instance (Composition API mode). */
export function createAppI18n(
  locale: Locale = detectLocale(readStoredLocale(), systemLanguages()),
) {
  return createI18n({
    legacy: false,
    locale,
    fallbackLocale: 'en',
    messages: { en, 'zh-CN': zhCN },
    // Dates and numbers are formatted with Intl directly; keep the console quiet about it.
    missingWarn: false,
    fallbackWarn: false,
  });
}

export type AppI18n = ReturnType<typeof createAppI18n>;

/**
 * Switches the language (the global composer's `locale` ref, or `useI18n().locale`), remembers
 * it, and tells assistive tech and spell checkers through <html lang>.
 */
export function setLocale(target: { value: string }, locale: Locale): void {
  target.value = locale;
  try {
    localStorage.setItem(LOCALE_STORAGE_KEY, locale);
  } catch {
    // Storage may be off (private mode); the switch still applies to this visit.
  }
  if (typeof document !== 'undefined') document.documentElement.lang = locale;
}
