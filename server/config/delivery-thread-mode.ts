/**
 * HERALD_DELIVERY_THREAD (SQLite on better-sqlite3 only; docs/architecture.md, "The delivery
 * thread"):
 * - `off` (the default): every delivery on the main thread. On two cores the thread measured
 *   no faster (README, "Performance"): it adds about a quarter to the CPU each delivery costs,
 *   and the load and the receivers on the same machine want the second core too.
 * - `auto`: the main thread delivers until a burst leaves all its attempt slots busy; then the
 *   delivery thread starts and takes over claiming, and it stops after threadIdleMs() (30 s)
 *   with nothing to do, so an idle Herald keeps the memory of one thread.
 * - `on`: the thread starts with Herald and delivers for as long as it runs.
 */
export type DeliveryThreadMode = 'auto' | 'on' | 'off';

/** HERALD_DELIVERY_THREAD's value (undefined or blank: off). */
export function deliveryThreadMode(value: string | undefined): DeliveryThreadMode {
  if (value === undefined || value === '') return 'off';
  if (value === 'auto' || value === 'on' || value === 'off') return value;
  throw new Error(`HERALD_DELIVERY_THREAD must be auto, on or off, not "${value}"`);
}
