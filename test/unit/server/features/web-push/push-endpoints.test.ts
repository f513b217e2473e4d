import { describe, expect, it } from 'vitest';

import { endpointRefusal } from '../../../../../server/features/web-push/push-endpoints';

describe('endpointRefusal()', () => {
  it('lets the browsers’ push services through, on https and their own port', () => {
    for (const endpoint of [
      'https://fcm.googleapis.com/fcm/send/abc:def',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
      'https://push.services.mozilla.com/wpush/v1/x',
      'https://wns2-by3p.notify.windows.com/w/?token=x',
      'https://web.push.apple.com/QGz',
      'https://FCM.googleapis.com./fcm/send/x',
    ]) {
      expect(endpointRefusal(endpoint, []), endpoint).toBeNull();
    }
  });

  it('refuses every other host, a look-alike, another port, http and credentials', () => {
    const refused = {
      'https://evil.example.com/push': 'is not a known push service',
      'https://fcm.googleapis.com.evil.example/x': 'is not a known push service',
      'https://notify.windows.com.evil.example/x': 'is not a known push service',
      'https://evilnotify.windows.com/x': 'is not a known push service',
      'https://fcm.googleapis.com:8443/x': 'is not a known push service',
      'https://127.0.0.1/x': 'is not a known push service',
      'http://fcm.googleapis.com/x': 'must use https',
      'https://user:pw@fcm.googleapis.com/x': 'must not carry a user name or password',
      'file:///etc/passwd': 'must use https',
      'fcm.googleapis.com/x': 'is not a URL',
    };
    for (const [endpoint, why] of Object.entries(refused)) {
      expect(endpointRefusal(endpoint, []), endpoint).toContain(why);
    }
  });

  it('adds the origins HERALD_WEB_PUSH_ENDPOINTS lists, and only those origins', () => {
    const extra = ['http://127.0.0.1:4100', 'https://push.example.com:8443'];
    expect(endpointRefusal('http://127.0.0.1:4100/push/1', extra)).toBeNull();
    expect(endpointRefusal('https://push.example.com:8443/p', extra)).toBeNull();
    expect(endpointRefusal('http://127.0.0.1:4101/push/1', extra)).toContain('must use https');
    expect(endpointRefusal('https://push.example.com/p', extra)).toContain('not a known');
    // A hand-made list cannot open plain http to a host that is not the machine itself.
    expect(endpointRefusal('http://10.0.0.5/p', ['http://10.0.0.5'])).toContain('https');
  });
});
