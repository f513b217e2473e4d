/** Whether `/metrics` answers, and the bearer token a scraper must present if one is set. */
export interface MetricsSettings {
  enabled: boolean;
  token: string | null;
}

/** Long enough that guessing it over HTTP is hopeless. */
const MIN_TOKEN_LENGTH = 16;

const ON = new Set(['1', 'true', 'on', 'yes']);
const OFF = new Set(['', '0', 'false', 'off', 'no']);

/** HERALD_METRICS (off unless `1`) and HERALD_METRICS_TOKEN; a bad value names its variable. */
export function parseMetricsSettings(
  enabled: string | undefined,
  token: string | undefined,
  names = { enabled: 'HERALD_METRICS', token: 'HERALD_METRICS_TOKEN' },
): MetricsSettings {
  const flag = (enabled ?? '').trim().toLowerCase();
  if (!ON.has(flag) && !OFF.has(flag)) {
    throw new Error(`${names.enabled} must be 1 (serve /metrics) or 0, not "${enabled}"`);
  }
  const bearer = token === undefined || token === '' ? null : token;
  if (bearer !== null && (bearer.length < MIN_TOKEN_LENGTH || /\s/.test(bearer))) {
    throw new Error(
      `${names.token} must be at least ${MIN_TOKEN_LENGTH} characters without spaces (a scraper sends it as "Authorization: Bearer …")`,
    );
  }
  return { enabled: ON.has(flag), token: bearer };
}
