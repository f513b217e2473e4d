import type { Clock } from '../../server/lib/clock';

/** A clock tests move by hand, so retry and pacing behaviour is checked without waiting. */
export class ManualClock implements Clock {
  constructor(private current = Date.parse('2026-11-22T08:00:00.000Z')) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(ms: number): void {
    this.current = ms;
  }
}
