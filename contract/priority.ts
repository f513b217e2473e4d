/**
 * Message priority (issue 24, docs/send-api.md "Priority"): an integer 1 (min) to 5 (max), 3
 * the default, or ntfy's names for them. Imports nothing, so `herald send` (cli/) and the
 * channels read the same table the send APIs parse with.
 */

/** ntfy's priority names and the number each stands for. */
export const PRIORITY_NAMES: Readonly<Record<string, 1 | 2 | 3 | 4 | 5>> = {
  min: 1,
  low: 2,
  default: 3,
  high: 4,
  max: 5,
  urgent: 5,
};

export type Priority = 1 | 2 | 3 | 4 | 5;

/** What a send without a priority is treated as, where a channel has no default of its own. */
export const DEFAULT_PRIORITY: Priority = 3;

/**
 * A priority as a caller wrote it (5, "5", "high", " HIGH ") as its number, or undefined when
 * it is none of those.
 */
export function parsePriority(value: unknown): Priority | undefined {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 1 && value <= 5 ? (value as Priority) : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  if (/^[1-5]$/.test(word)) return Number(word) as Priority;
  return Object.prototype.hasOwnProperty.call(PRIORITY_NAMES, word)
    ? PRIORITY_NAMES[word]
    : undefined;
}
