import { randomBytes } from 'node:crypto';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { TokenCodec, TokenError } from '../../../../server/crypto/tokens';

describe('TokenCodec', () => {
  const codec = new TokenCodec(randomBytes(32));

  it('encode() is deterministic and decode() returns what was encoded', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.nat({ max: 2 ** 31 }),
        (id, generation) => {
          const token = codec.encode({ kind: 'template', id, generation });
          expect(codec.encode({ kind: 'template', id, generation })).toBe(token);
          expect(codec.decode(token, 'template')).toEqual({ kind: 'template', id, generation });
        },
      ),
    );
  });

  it('decode() refuses a token of the other kind', () => {
    const task = codec.encode({ kind: 'task', id: 7, generation: 0 });
    expect(() => codec.decode(task, 'template')).toThrow(TokenError);
    expect(() =>
      codec.decode(codec.encode({ kind: 'template', id: 7, generation: 0 }), 'task'),
    ).toThrow(/not a task token/);
  });

  it('a token already decoded (and remembered) still opens only its own kind', () => {
    const fresh = new TokenCodec(randomBytes(32));
    const task = fresh.encode({ kind: 'task', id: 9, generation: 2 });
    expect(fresh.decode(task, 'task')).toEqual({ kind: 'task', id: 9, generation: 2 });
    expect(() => fresh.decode(task, 'template')).toThrow(/not a template token/);
    // The answer is a copy: a caller changing it does not change the next decode.
    const first = fresh.decode(task, 'task');
    first.generation = 99;
    expect(fresh.decode(task, 'task')).toEqual({ kind: 'task', id: 9, generation: 2 });
  });

  it('decode() refuses any altered character, a wrong key, and malformed input', () => {
    const token = codec.encode({ kind: 'task', id: 42, generation: 3 });
    fc.assert(
      fc.property(
        fc.nat({ max: token.length - 1 }),
        fc.constantFrom(...'ABCDEFabcdef0123456789-_'),
        (i, ch) => {
          fc.pre(token[i] !== ch);
          const altered = token.slice(0, i) + ch + token.slice(i + 1);
          expect(() => codec.decode(altered, 'task')).toThrow(TokenError);
        },
      ),
    );
    expect(() => new TokenCodec(randomBytes(32)).decode(token, 'task')).toThrow(TokenError);
    for (const bad of ['', 'a', 'has space', '!!!', token + 'AA'])
      expect(() => codec.decode(bad, 'task')).toThrow(TokenError);
  });

  it('encode() gives different tokens for different ids, kinds and generations', () => {
    const tokens = new Set([
      codec.encode({ kind: 'task', id: 1, generation: 0 }),
      codec.encode({ kind: 'task', id: 2, generation: 0 }),
      codec.encode({ kind: 'template', id: 1, generation: 0 }),
      codec.encode({ kind: 'task', id: 1, generation: 1 }),
    ]);
    expect(tokens.size).toBe(4);
  });
});
