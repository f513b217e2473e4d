/**
 * Message Nest's V1/V2 token: the task or template id XORed with a fixed key and a salt that
 * the token itself carries, in hex. It is an encoding, not a secret: anyone who knows an id can
 * make its token. Herald only decodes it, for imported tasks and templates whose administrator
 * turned `acceptLegacyToken` on (see docs/migrating-from-message-nest.md).
 */
const KEY = 71;

/** Message Nest ids are at most a UUID (36 chars); a longer "token" is not one of its tokens. */
const MAX_ID_BYTES = 64;

export function encodeMessageNestToken(id: string): string {
  const bytes = Buffer.from(id, 'latin1');
  let salt = 0;
  bytes.forEach((b, i) => {
    salt = (salt + b * (i + 1)) & 0xff;
  });
  const out = Buffer.alloc(bytes.length + 1);
  out[0] = salt;
  bytes.forEach((b, i) => {
    out[i + 1] = b ^ KEY ^ ((salt + i) & 0xff);
  });
  return out.toString('hex');
}

/**
 * The id a Message Nest token decodes to, or null when the text cannot be one (not hex, odd
 * length, empty, or decoding to something other than printable ASCII). Like Message Nest, the
 * salt is not checked: the caller looks the id up, and an unknown id opens nothing.
 */
export function decodeMessageNestToken(token: string): string | null {
  if (!/^(?:[0-9a-fA-F]{2}){2,}$/.test(token) || token.length > 2 * (MAX_ID_BYTES + 1)) {
    return null;
  }
  const raw = Buffer.from(token, 'hex');
  const salt = raw[0];
  let id = '';
  for (let i = 0; i < raw.length - 1; i++) {
    const c = raw[i + 1] ^ KEY ^ ((salt + i) & 0xff);
    if (c < 0x21 || c > 0x7e) return null;
    id += String.fromCharCode(c);
  }
  return id;
}
