/**
 * Every place Herald keeps a value sealed with the server key (SecretBox, `enc:v1:…`): what
 * `herald rotate-key` re-seals, in one transaction. A column that starts holding sealed values
 * belongs here; test/unit/server/features/key-rotation/sealed-values.test.ts fails when a
 * model documents a sealed attribute, or a module seals something, that this list leaves out.
 *
 * Tokens are not stored (they are derived from the key, crypto/tokens.ts), so they are not
 * here: rotation keeps or replaces the token part of the key instead (rotate-key.ts).
 */
export interface SealedValues {
  /** For the report: what the values are, plural. */
  readonly what: string;
  readonly table: string;
  /** The row's primary key column. */
  readonly key: string;
  readonly column: string;
  /**
   * `text`: the column is one sealed string. `json`: sealed strings anywhere inside a JSON
   * value (a channel's secret fields, secret header maps and proxy; a setting's value).
   */
  readonly shape: 'text' | 'json';
}

// A table or column the database does not have (an older schema, a feature not there yet) is
// skipped: it holds nothing sealed.

export const SEALED_VALUES: readonly SealedValues[] = [
  // Each kind's secretFields (crypto/secret-box.ts via channel-config/channel-secrets.ts), and
  // a proxy URL with credentials (channel-config/proxy-credentials.ts).
  { what: 'channel secrets', table: 'channels', key: 'id', column: 'config', shape: 'json' },
  // The inbound hooks' signing secret (sources/template-service.ts).
  { what: 'hook secrets', table: 'templates', key: 'id', column: 'hook_secret', shape: 'text' },
  // Two-factor (auth/two-factor-service.ts): the confirmed secret, and one being set up.
  { what: 'two-factor secrets', table: 'users', key: 'id', column: 'totp_secret', shape: 'text' },
  {
    what: 'two-factor secrets being set up',
    table: 'users',
    key: 'id',
    column: 'totp_pending',
    shape: 'text',
  },
  // Any sealed string in a setting's value: the Web Push VAPID private key
  // (web-push/vapid-keys.ts, the `web-push-vapid` row), the OpenID Connect client secret
  // (sso/sign-in-config.ts, the `sign-in` row).
  { what: 'sealed settings', table: 'settings', key: 'key', column: 'value', shape: 'json' },
];
