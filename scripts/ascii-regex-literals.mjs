/**
 * esbuild writes ASCII-only output, except inside regular-expression literals, which it leaves
 * as they were. A single non-Latin-1 character anywhere in a script makes V8 hold the whole
 * source as UTF-16: the server bundle carries a few (validator's alphabet tables, for
 * Sequelize), which doubled the five megabytes of source every Herald process keeps in its
 * heap. This pass spells those characters as \u escapes, which match exactly the same text
 * (surrogate pairs included, with or without the `u` flag); only a regex's `.source` spelling
 * changes. Plain JavaScript: scripts/build-server.mjs runs before anything compiles TypeScript.
 */
import { tokenizer } from 'acorn';

const nonAscii = /[\u0080-\uffff]/g;
const hasNonAscii = /[\u0080-\uffff]/;

const unicodeEscape = (code) => `\\u${code.toString(16).padStart(4, '0')}`;

/** One regex literal with its non-ASCII units escaped; `\é` (an identity escape) becomes `\u00e9`. */
function escapeLiteral(literal) {
  let out = '';
  for (let i = 0; i < literal.length; i++) {
    const ch = literal[i];
    if (ch === '\\' && i + 1 < literal.length) {
      const next = literal.charCodeAt(i + 1);
      out += next > 0x7f ? unicodeEscape(next) : ch + literal[i + 1];
      i++;
    } else {
      const code = literal.charCodeAt(i);
      out += code > 0x7f ? unicodeEscape(code) : ch;
    }
  }
  return out;
}

/**
 * Returns the source with every non-ASCII UTF-16 unit inside a regex literal escaped, and how
 * many non-ASCII units remain elsewhere (comments, tagged templates), which the caller reports.
 */
export function escapeRegexLiterals(source) {
  let out = '';
  let from = 0;
  for (const token of tokenizer(source, { ecmaVersion: 'latest', sourceType: 'module' })) {
    if (token.type.label !== 'regexp') continue;
    const literal = source.slice(token.start, token.end);
    if (!hasNonAscii.test(literal)) continue;
    out += source.slice(from, token.start) + escapeLiteral(literal);
    from = token.end;
  }
  out += source.slice(from);
  return { source: out, leftNonAscii: out.match(nonAscii)?.length ?? 0 };
}
