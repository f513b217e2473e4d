/**
 * A session's browser and system in words ("Chrome on Linux") from its User-Agent header. Only
 * the families a person would recognise; the order of the checks matters because most
 * browsers name the ones they descend from too (Edge says Chrome and Safari, Chrome says Safari).
 */

export interface UserAgentName {
  /** "Chrome", "Firefox", …, "Herald desktop", or null when unknown. */
  browser: string | null;
  /** "Windows", "macOS", "Linux", …, or null when unknown. */
  system: string | null;
}

const BROWSERS: readonly (readonly [RegExp, string])[] = [
  // Herald's own window is Chromium inside Electron; its UA says Electron/.
  [/\bElectron\//, 'Herald desktop'],
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\b(OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bYaBrowser\//, 'Yandex Browser'],
  [/\bVivaldi\//, 'Vivaldi'],
  [/\bMicroMessenger\//, 'WeChat'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/\b(HeadlessChrome)\//, 'Headless Chrome'],
  [/\b(Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/\bcurl\//, 'curl'],
];

const SYSTEMS: readonly (readonly [RegExp, string])[] = [
  // iPadOS 13+ says Macintosh; only an iPad says iPad, and iPhones say iPhone.
  [/\b(iPhone|iPod)\b/, 'iOS'],
  [/\biPad\b/, 'iPadOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bHarmonyOS\b/, 'HarmonyOS'],
  [/\b(Linux|X11|Ubuntu|Fedora)\b/, 'Linux'],
];

const first = (ua: string, table: readonly (readonly [RegExp, string])[]) =>
  table.find(([pattern]) => pattern.test(ua))?.[1] ?? null;

/** The browser and system a User-Agent header names. */
export function nameUserAgent(ua: string | null | undefined): UserAgentName {
  const text = ua ?? '';
  return { browser: first(text, BROWSERS), system: first(text, SYSTEMS) };
}
