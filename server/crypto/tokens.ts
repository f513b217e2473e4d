import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';

import { deriveKey, tokenPart } from './server-key';

/** What a token can open. A token of one kind never opens the other. */
export type TokenKind = 'task' | 'template';

const KIND_BYTE: Record<TokenKind, number> = { task: 1, template: 2 };
const VERSION = 1;
const NONCE_LEN = 12;
const TAG_LEN = 16;
const PLAIN_LEN = 1 + 1 + 8 + 4; // version, kind, id, generation

export interface TokenPayload {
  kind: TokenKind;
  id: number;
  /** Bumped by rotation; a token with an older generation no longer opens the object. */
  generation: number;
}

export class TokenError extends Error {}

/** Tokens whose decoding is remembered: far more than the tasks and templates in use. */
const DECODED_CACHE_SIZE = 1000;

/**
 * Deterministic authenticated encryption (SIV-style): the GCM nonce is an HMAC of the plaintext,
 * so the same (kind, id, generation) always yields the same token, and any change to the token
 * fails authentication. The output is base64url, safe in URLs and JSON.
 */
export class TokenCodec {
  private readonly encKey: Buffer;
  private readonly sivKey: Buffer;
  /**
   * Token string → payload for tokens that authenticated, least recently used first. A token
   * is deterministic and its payload never changes, so every send need not pay the AES-GCM
   * and HMAC again; rotation and deletion are checked against the database, not here.
   */
  private readonly decoded = new Map<string, Readonly<TokenPayload>>();

  constructor(masterKey: Buffer) {
    this.encKey = deriveKey(tokenPart(masterKey), 'token-enc');
    this.sivKey = deriveKey(tokenPart(masterKey), 'token-siv');
  }

  encode(payload: TokenPayload): string {
    const plain = Buffer.alloc(PLAIN_LEN);
    plain.writeUInt8(VERSION, 0);
    plain.writeUInt8(KIND_BYTE[payload.kind], 1);
    plain.writeBigUInt64BE(BigInt(payload.id), 2);
    plain.writeUInt32BE(payload.generation >>> 0, 10);
    const nonce = createHmac('sha256', this.sivKey).update(plain).digest().subarray(0, NONCE_LEN);
    const cipher = createCipheriv('aes-256-gcm', this.encKey, nonce);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** Throws TokenError with a short reason when the token is malformed or forged. */
  decode(token: string, expected: TokenKind): TokenPayload {
    const hit = this.decoded.get(token);
    if (hit?.kind === expected) {
      this.decoded.delete(token);
      this.decoded.set(token, hit);
      return { ...hit };
    }
    const payload = this.decodeUncached(token, expected);
    if (this.decoded.size >= DECODED_CACHE_SIZE) {
      this.decoded.delete(this.decoded.keys().next().value as string);
    }
    this.decoded.set(token, Object.freeze({ ...payload }));
    return payload;
  }

  private decodeUncached(token: string, expected: TokenKind): TokenPayload {
    if (typeof token !== 'string' || !/^[A-Za-z0-9_-]+$/.test(token)) {
      throw new TokenError('格式错误 (malformed token)');
    }
    const raw = Buffer.from(token, 'base64url');
    if (raw.length !== NONCE_LEN + PLAIN_LEN + TAG_LEN) {
      throw new TokenError('长度错误 (wrong token length)');
    }
    const nonce = raw.subarray(0, NONCE_LEN);
    const body = raw.subarray(NONCE_LEN, NONCE_LEN + PLAIN_LEN);
    const tag = raw.subarray(NONCE_LEN + PLAIN_LEN);
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.encKey, nonce);
      decipher.setAuthTag(tag);
      plain = Buffer.concat([decipher.update(body), decipher.final()]);
    } catch {
      throw new TokenError('校验失败 (token does not authenticate)');
    }
    const siv = createHmac('sha256', this.sivKey).update(plain).digest().subarray(0, NONCE_LEN);
    if (!timingSafeEqual(siv, nonce) || plain.readUInt8(0) !== VERSION) {
      throw new TokenError('校验失败 (token does not authenticate)');
    }
    const kindByte = plain.readUInt8(1);
    if (kindByte !== KIND_BYTE[expected]) {
      throw new TokenError(`类型错误 (not a ${expected} token)`);
    }
    return {
      kind: expected,
      id: Number(plain.readBigUInt64BE(2)),
      generation: plain.readUInt32BE(10),
    };
  }
}
