import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

import { deriveKey, sealingPart } from './server-key';

const PREFIX = 'enc:v1:';

/** Encrypts channel secrets at rest (AES-256-GCM, random nonce). */
export class SecretBox {
  private readonly key: Buffer;

  constructor(masterKey: Buffer) {
    this.key = deriveKey(sealingPart(masterKey), 'secrets-at-rest');
  }

  seal(plain: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64');
  }

  open(sealed: string): string {
    if (!SecretBox.isSealed(sealed)) return sealed;
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  static isSealed(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(PREFIX);
  }
}
