/** Injectable time source so retry, pacing and expiry logic is testable without waiting. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
