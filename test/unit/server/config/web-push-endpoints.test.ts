import { describe, expect, it } from 'vitest';

import { readHeraldConfig } from '../../../../server/config/herald-config';
import { parseWebPushEndpoints } from '../../../../server/config/web-push-endpoints';

describe('parseWebPushEndpoints()', () => {
  it('reads a comma-separated list of origins, normalised', () => {
    expect(parseWebPushEndpoints(undefined)).toEqual([]);
    expect(parseWebPushEndpoints(' ')).toEqual([]);
    expect(
      parseWebPushEndpoints(
        'https://Push.Example.com, https://push.example.com:8443/ ,http://127.0.0.1:4100',
      ),
    ).toEqual([
      'https://push.example.com',
      'https://push.example.com:8443',
      'http://127.0.0.1:4100',
    ]);
    expect(parseWebPushEndpoints('http://localhost:9,http://[::1]:9')).toEqual([
      'http://localhost:9',
      'http://[::1]:9',
    ]);
  });

  it('refuses a path, plain http off loopback, another scheme and a non-URL, naming the entry', () => {
    const refused = {
      'https://push.example.com/wpush': 'must be an origin only',
      'https://user:pw@push.example.com': 'must be an origin only',
      'http://push.example.com': 'may use http only on a loopback host',
      'http://10.0.0.5:80': 'may use http only on a loopback host',
      'ftp://push.example.com': 'must be an https:// origin',
      'push.example.com': 'is not an origin',
    };
    for (const [value, why] of Object.entries(refused)) {
      expect(() => parseWebPushEndpoints(value), value).toThrow(why);
      expect(() => parseWebPushEndpoints(value), value).toThrow(
        `HERALD_WEB_PUSH_ENDPOINTS: "${value}"`,
      );
    }
  });

  it('is read from the environment, and the option overrides it', () => {
    const env = { HERALD_WEB_PUSH_ENDPOINTS: 'https://push.example.com' };
    expect(readHeraldConfig({ dataDir: '/tmp/x' }, env).webPushEndpoints).toEqual([
      'https://push.example.com',
    ]);
    expect(
      readHeraldConfig({ dataDir: '/tmp/x', webPushEndpoints: 'http://127.0.0.1:1' }, env)
        .webPushEndpoints,
    ).toEqual(['http://127.0.0.1:1']);
    expect(() =>
      readHeraldConfig({ dataDir: '/tmp/x' }, { HERALD_WEB_PUSH_ENDPOINTS: 'x' }),
    ).toThrow('HERALD_WEB_PUSH_ENDPOINTS');
  });
});
