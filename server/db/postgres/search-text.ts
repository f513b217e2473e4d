/**
 * The text PostgreSQL searches in, per history table: every searchable column joined by
 * chr(1), one expression with one `gin_trgm_ops` index (migration history-index). A query
 * holds no control character when it uses the index (such queries are scanned column by
 * column), so a match never spans two columns.
 *
 * The expressions must stay exactly as the migration indexed them: a different text is not
 * answered by the index. Changing one needs a migration that builds the new index.
 */
export const SEARCH_TEXT = {
  hosted_messages: (alias: string) => `(${alias}.title || chr(1) || ${alias}.content)`,
  sends: (alias: string) =>
    `(${alias}.title || chr(1) || coalesce(${alias}.text, '') || chr(1) || ` +
    `coalesce(${alias}.html, '') || chr(1) || coalesce(${alias}.markdown, ''))`,
} as const;

/** The index expression: the same text, unqualified, as CREATE INDEX wants it. */
export function indexedText(table: keyof typeof SEARCH_TEXT): string {
  return SEARCH_TEXT[table](table);
}
