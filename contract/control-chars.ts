/**
 * C0 control characters other than tab, line feed and carriage return: NUL breaks SQLite text
 * and the channels' APIs, and the others have no meaning in a message.
 */
export function findControlChar(text: string): { index: number; code: string } | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) {
      return { index: i, code: `U+${c.toString(16).toUpperCase().padStart(4, '0')}` };
    }
  }
  return undefined;
}

/** The msg for a string that holds one; the caller prefixes the field name. */
export function controlCharMessage(found: { index: number; code: string }): string {
  return `contains a control character (${found.code} at position ${found.index + 1}); remove it: only tab, line feed and carriage return are allowed`;
}
