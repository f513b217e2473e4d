import { describe, expect, it } from 'vitest';

import {
  redactSecrets,
  secretValues,
} from '../../../../../server/features/channel-config/secret-redaction';

describe('secretValues()', () => {
  it('collects secret strings, a map’s values and proxy credentials, never the mask or ""', () => {
    const config = {
      url: 'https://hooks.example/a',
      token: 'tok-1',
      secretHeaders: { Authorization: 'Bearer abc', 'X-Empty': '' },
      kept: '******',
      proxy: 'http://user:p%40ss@proxy.lan:3128',
    };
    expect(secretValues(config, ['token', 'secretHeaders', 'kept'])).toEqual([
      'tok-1',
      'Bearer abc',
      'user',
      'p%40ss',
      'p@ss',
    ]);
    expect(secretValues({ proxy: 'http://proxy.lan:3128' }, [])).toEqual([]);
    expect(secretValues({ proxy: 'not a url' }, [])).toEqual([]);
  });
});

describe('redactSecrets()', () => {
  it('masks each secret as written, URL-encoded and JSON-escaped', () => {
    const secret = 'a/b"c d';
    const text = `raw ${secret}, url ${encodeURIComponent(secret)}, json ${JSON.stringify(secret)}`;
    expect(redactSecrets(text, [secret])).toBe('raw ******, url ******, json "******"');
  });

  it('masks the longer of two overlapping secrets whole', () => {
    expect(redactSecrets('key abcdef', ['abc', 'abcdef'])).toBe('key ******');
  });

  it('leaves text without secrets, and null, as they are', () => {
    expect(redactSecrets('HTTP 200 ok', ['zzz'])).toBe('HTTP 200 ok');
    expect(redactSecrets('HTTP 200 ok', [])).toBe('HTTP 200 ok');
    expect(redactSecrets(null, ['zzz'])).toBeNull();
  });
});
