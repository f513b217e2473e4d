import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  DEFAULT_WEBHOOK_BODY,
  bodyEncoding,
  renderWebhookBody,
  renderWebhookUrl,
} from '../../../../server/channels/webhook-body';

describe('renderWebhookBody()', () => {
  it('renderWebhookBody() always yields valid JSON that round-trips every value', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (title, content, url) => {
        const body = renderWebhookBody(
          DEFAULT_WEBHOOK_BODY,
          { title, content, url, format: 'text' },
          'json',
        );
        expect(JSON.parse(body)).toEqual({ title, content, url, format: 'text' });
        const bare = renderWebhookBody(
          '{"c": {{content}}, "s": "x {{title}} y"}',
          { title, content, url, format: 'html' },
          'json',
        );
        expect(JSON.parse(bare)).toEqual({ c: content, s: `x ${title} y` });
      }),
    );
  });

  it('renderWebhookBody() percent-encodes form bodies and escapes XML', () => {
    const v = { title: 'a&b=c', content: '<x>', url: '', format: 'text' };
    expect(renderWebhookBody('t={{title}}&c={{content}}', v, 'form')).toBe('t=a%26b%3Dc&c=%3Cx%3E');
    expect(renderWebhookBody('<m>{{content}}</m>', v, 'xml')).toBe('<m>&lt;x&gt;</m>');
  });

  it('bodyEncoding() follows the Content-Type header', () => {
    expect(bodyEncoding(undefined)).toBe('json');
    expect(bodyEncoding('application/json; charset=utf-8')).toBe('json');
    expect(bodyEncoding('application/x-www-form-urlencoded')).toBe('form');
    expect(bodyEncoding('text/xml')).toBe('xml');
    expect(bodyEncoding('text/plain')).toBe('text');
  });

  it('renderWebhookBody() reads escaped quotes in the template as part of the string', () => {
    const v = { title: 'T "q"', content: 'c', url: '', format: 'text' };
    const body = renderWebhookBody('{"a":"say \\"hi\\" {{title}}","b":{{content}}}', v, 'json');
    expect(JSON.parse(body)).toEqual({ a: 'say "hi" T "q"', b: 'c' });
  });

  it('renderWebhookBody() leaves an unknown marker as written, even before a known one', () => {
    const v = { title: 'T', content: 'c', url: '', format: 'text' };
    const body = renderWebhookBody('{"a":"{{nope}}","b":"{{title}}"}', v, 'json');
    expect(JSON.parse(body)).toEqual({ a: '{{nope}}', b: 'T' });
  });

  it('renderWebhookBody() escapes every XML-special character and leaves text bodies as they are', () => {
    const v = { title: `&"'<>`, content: '', url: '', format: 'text' };
    expect(renderWebhookBody('<t>{{title}}</t>', v, 'xml')).toBe('<t>&amp;&quot;&#39;&lt;&gt;</t>');
    expect(renderWebhookBody('t={{ title }}', v, 'text')).toBe(`t=&"'<>`);
  });
});

describe('renderWebhookUrl()', () => {
  it('percent-encodes each value', () => {
    const v = { title: 'a b&c/d', content: '', url: '', format: 'html' };
    expect(renderWebhookUrl('https://hook.example/p?t={{title}}&f={{format}}', v)).toBe(
      'https://hook.example/p?t=a%20b%26c%2Fd&f=html',
    );
  });
});
