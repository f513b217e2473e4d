/**
 * TEST ONLY: a duration a test shortens through an environment variable (HERALD_TEST_*_MS);
 * null when the variable is unset or blank. A value that is not a whole number of ms, at least
 * `minMs`, stops the start: a typo would make the test wait for what never comes.
 */
export function testDurationFromEnv(name: string, minMs: number): number | null {
  const value = process.env[name];
  if (value === undefined || value === '') return null;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < minMs) {
    throw new Error(`${name} must be a whole number of ms, at least ${minMs}, not "${value}"`);
  }
  return ms;
}
