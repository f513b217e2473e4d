/**
 * How a message's priority marks its row or card: urgent (5) stands out in red, high (4) with a
 * warning edge; the rest look alike. styles.css draws `is-urgent` and `is-high`.
 */
export function priorityClass(priority: number | null | undefined): string {
  if (priority === 5) return 'is-urgent';
  if (priority === 4) return 'is-high';
  return '';
}
