/** Field descriptions the per-kind channel forms are built from. */

export type FieldKind =
  'text' | 'url' | 'secret' | 'number' | 'select' | 'textarea' | 'switch' | 'headers';

export interface FieldSpec {
  /** Config key, sent to the server as is. */
  key: string;
  kind: FieldKind;
  /** i18n key of the label; defaults to `channelConfig.<key>`. */
  label?: string;
  /** i18n key of a help line under the field. */
  help?: string;
  required?: boolean;
  placeholder?: string;
  options?: readonly { value: string; label: string }[];
  /** Filled in when a new channel of this kind is created. */
  default?: unknown;
  min?: number;
  max?: number;
  /** For a `headers` map that holds something else: i18n keys of its name column and add button. */
  keyLabel?: string;
  addLabel?: string;
  /** Shown under "Advanced" (proxies, timeouts). */
  advanced?: boolean;
}

/** Proxy and timeout, which every HTTP-based channel kind accepts. */
export const httpOptionFields: readonly FieldSpec[] = [
  {
    key: 'proxy',
    kind: 'url',
    placeholder: 'http://proxy.example:3128',
    help: 'channelHelp.proxy',
    advanced: true,
  },
  {
    key: 'timeoutMs',
    kind: 'number',
    min: 100,
    max: 120_000,
    placeholder: '10000',
    advanced: true,
  },
];

/** The masked value the server sends for a secret that is set. */
export const MASKED_SECRET = '******';

/** Config with each field's default filled in where the key is missing. */
export function withDefaults(
  config: Record<string, unknown>,
  fields: readonly FieldSpec[],
): Record<string, unknown> {
  const next = { ...config };
  for (const field of fields) {
    if (next[field.key] === undefined && field.default !== undefined)
      next[field.key] = field.default;
  }
  return next;
}
