/**
 * Which of a file's pre-compressed copies a request's Accept-Encoding asks for (RFC 9110
 * §12.5.3), read by hand because Express's negotiator breaks ties by the header's order, and
 * browsers list gzip before br with the same weight.
 */

/** The codings the console's build writes copies in, smallest first. */
export type ContentCoding = 'br' | 'gzip';

/** Weights by coding name, lower-cased; `x-gzip` counts as gzip. */
function weights(header: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    let name = rawName.trim().toLowerCase();
    if (name === '') continue;
    if (name === 'x-gzip') name = 'gzip';
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=').map((s) => s.trim().toLowerCase());
      if (key !== 'q') continue;
      // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ); anything else is ignored
      // as if the entry were not there, rather than guessed at.
      q = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value ?? '') ? Number(value) : NaN;
    }
    if (Number.isNaN(q)) continue;
    // The first mention of a name counts, as for any repeated field entry.
    if (!found.has(name)) found.set(name, q);
  }
  return found;
}

/**
 * The coding to answer with among `available` (in the server's order of preference), or null
 * for the file as it is. The highest weight wins, on a tie the earlier of `available`; the
 * plain file wins only where the header names identity with a higher weight than any coding it
 * accepts (unnamed, identity is the fallback, not a rival). Without the header, the file goes
 * as it is: a client that names no coding (curl, a script) gets plain bytes.
 */
export function pickCoding(
  header: string | undefined,
  available: readonly ContentCoding[],
): ContentCoding | null {
  if (header === undefined || available.length === 0) return null;
  const q = weights(header);
  const star = q.get('*');
  const weightOf = (coding: string) => q.get(coding) ?? star ?? 0;
  let best: ContentCoding | null = null;
  let bestWeight = 0;
  for (const coding of available) {
    const w = weightOf(coding);
    if (w > bestWeight) {
      best = coding;
      bestWeight = w;
    }
  }
  const identity = q.get('identity');
  if (best === null || (identity !== undefined && identity > bestWeight)) return null;
  return best;
}
