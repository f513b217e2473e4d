import { describe, expect, it } from 'vitest';

import {
  ADDRESS_POLICY,
  USER_POLICY,
  passwordKeys,
} from '../../../../../server/domain/sign-in-throttle';
import { LoginThrottle, describeWait } from '../../../../../server/features/auth/login-throttle';
import { ManualClock } from '../../../../helpers/manual-clock';

/** Fails `n` tries, waiting out each delay as a patient guesser would; returns the next wait. */
function failPatiently(
  throttle: LoginThrottle,
  clock: ManualClock,
  keys = passwordKeys('admin', '1.2.3.4'),
  n = 1,
) {
  for (let i = 0; i < n; i++) {
    const wait = throttle.begin(keys);
    if (wait > 0) {
      clock.advance(wait);
      expect(throttle.begin(keys)).toBe(0);
    }
  }
  return throttle.begin(keys);
}

describe('LoginThrottle', () => {
  it('begin() lets the free failures through, then doubles the wait up to the cap', () => {
    const clock = new ManualClock();
    const throttle = new LoginThrottle(clock);
    const keys = passwordKeys('admin', '1.2.3.4');
    for (let i = 0; i < USER_POLICY.freeFailures; i++) expect(throttle.begin(keys)).toBe(0);
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      const wait = throttle.begin(keys);
      waits.push(wait);
      clock.advance(wait);
      expect(throttle.begin(keys)).toBe(0);
    }
    expect(waits.slice(0, 5)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
    expect(Math.max(...waits)).toBe(USER_POLICY.maxDelayMs);
    expect(waits.at(-1)).toBe(USER_POLICY.maxDelayMs);
  });

  it('begin() never blocks longer than the current delay: then the right password is judged', () => {
    const clock = new ManualClock();
    const throttle = new LoginThrottle(clock);
    const keys = passwordKeys('admin', '127.0.0.1');
    const wait = failPatiently(throttle, clock, keys, 40);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(USER_POLICY.maxDelayMs);
    clock.advance(wait - 1);
    expect(throttle.begin(keys)).toBe(1);
    clock.advance(1);
    expect(throttle.begin(keys)).toBe(0);
    throttle.succeed(keys);
    expect(throttle.begin(keys)).toBe(0);
  });

  it('begin() counts a try when it starts, so tries sent at once cannot all slip through', () => {
    const throttle = new LoginThrottle(new ManualClock());
    const keys = passwordKeys('admin', '1.2.3.4');
    const started = Array.from({ length: 50 }, () => throttle.begin(keys));
    expect(started.filter((w) => w === 0)).toHaveLength(USER_POLICY.freeFailures);
  });

  it('begin() keys the username across addresses, and the address across usernames', () => {
    const clock = new ManualClock();
    const throttle = new LoginThrottle(clock);
    for (let i = 0; i < USER_POLICY.freeFailures; i++)
      throttle.begin(passwordKeys('Admin', `10.0.0.${i}`));
    expect(throttle.begin(passwordKeys('admin ', '10.0.0.99'))).toBe(1_000);
    expect(throttle.begin(passwordKeys('someone-else', '10.0.0.99'))).toBe(0);

    const other = new LoginThrottle(clock);
    for (let i = 0; i < ADDRESS_POLICY.freeFailures; i++)
      other.begin(passwordKeys(`user${i}`, '10.9.9.9'));
    expect(other.begin(passwordKeys('fresh-name', '10.9.9.9'))).toBe(1_000);
    expect(other.begin(passwordKeys('fresh-name', '10.9.9.8'))).toBe(0);
  });

  it('begin() forgets a key after an hour without failures', () => {
    const clock = new ManualClock();
    const throttle = new LoginThrottle(clock);
    const keys = passwordKeys('admin', '1.2.3.4');
    expect(failPatiently(throttle, clock, keys, 9)).toBeGreaterThan(0);
    clock.advance(USER_POLICY.forgetAfterMs);
    expect(throttle.begin(keys)).toBe(0);
    // Starting over: the free failures are free again.
    for (let i = 1; i < USER_POLICY.freeFailures; i++) expect(throttle.begin(keys)).toBe(0);
    expect(throttle.begin(keys)).toBe(1_000);
  });

  it('describeWait() names seconds, then minutes', () => {
    expect(describeWait(1)).toBe('1 second');
    expect(describeWait(32_000)).toBe('32 seconds');
    expect(describeWait(300_000)).toBe('5 minutes');
  });
});
