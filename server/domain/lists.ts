/** Splits a comma-separated field (Chinese commas and semicolons too), trimming and dropping blanks. */
export function splitList(value: string | null | undefined): string[] {
  if (!value) return [];
  return value
    .split(/[,，;；\n]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
