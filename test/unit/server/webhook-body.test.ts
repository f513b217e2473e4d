import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  DEFAULT_WEBHOOK_BODY,
  bodyEncoding,
  renderWebhookBody,
} from '../../../server/channels/webhook-body';

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
});
