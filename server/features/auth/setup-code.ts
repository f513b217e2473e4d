import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

/** No 0/O, 1/I/L or U: nothing to misread when typing it from a terminal. */
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
const LENGTH = 10;

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Upper case without separators, so `abcde fghjk` and `ABCDE-FGHJK` are the same code. */
const normalize = (text: string) => text.replace(/[\s-]/g, '').toUpperCase();

/**
 * The one-time code that proves the first administrator is created by someone at the machine:
 * Herald prints it at start and hands it to its own desktop window, while a web page that
 * merely reaches 127.0.0.1 never sees it. Ten characters of a 30-symbol alphabet (about 49
 * bits), and wrong codes are throttled like passwords, so guessing it is hopeless.
 */
export class SetupCode {
  private code: string | null = null;

  /** Makes a fresh code (Herald has no administrator yet) and returns it, e.g. `K7XQM-4RTPW`. */
  issue(): string {
    let code = '';
    for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
    this.code = code;
    return this.display()!;
  }

  /** The code as printed (two groups of five), or null once an administrator exists. */
  display(): string | null {
    return this.code && `${this.code.slice(0, 5)}-${this.code.slice(5)}`;
  }

  /** Compares in constant time, so response timing does not reveal a correct prefix. */
  matches(candidate: string): boolean {
    if (!this.code) return false;
    return timingSafeEqual(digest(normalize(candidate)), digest(this.code));
  }

  /** The administrator exists: the code never works again. */
  expire(): void {
    this.code = null;
  }
}
