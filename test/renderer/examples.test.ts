import { describe, expect, it } from 'vitest';

import { buildExample, exampleBody } from '../../renderer/src/lib/examples';

const v2 = {
  origin: 'http://192.168.1.5:8765/',
  api: 'v2' as const,
  token: "tok'en",
  placeholders: { host: 'db-1' },
};

describe('buildExample()', () => {
  it('buildExample() fills curl with the URL and a shell-safe body', () => {
    const curl = buildExample('curl', v2);

    expect(curl).toContain("'http://192.168.1.5:8765/api/v2/message/send'");
    // The single quote in the token is closed, escaped and reopened for the shell.
    expect(curl).toContain(`"token": "tok'\\''en"`);
  });

  it('buildExample() writes a body each language parses back to the same JSON', () => {
    const body = exampleBody(v2);
    const node = buildExample('node', v2);
    const json = node.slice(node.indexOf('JSON.stringify(') + 15, node.indexOf('),\n});'));

    expect(JSON.parse(json)).toEqual(body);
    expect(buildExample('python', v2)).toContain('urllib.request.urlopen');
    expect(buildExample('go', v2)).toContain(
      'http.Post("http://192.168.1.5:8765/api/v2/message/send"',
    );
  });

  it('exampleBody() sends content on V1 and placeholders on V2, with recipients when asked', () => {
    expect(exampleBody({ origin: 'x', api: 'v1', token: 't' })).toMatchObject({
      token: 't',
      text: expect.any(String),
    });
    expect(exampleBody({ ...v2, recipients: ['ops@example.com'] })).toEqual({
      token: "tok'en",
      title: 'Hello from Herald',
      placeholders: { host: 'db-1' },
      recipients: ['ops@example.com'],
    });
  });
});
