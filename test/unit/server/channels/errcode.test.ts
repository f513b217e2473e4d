import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { DeliveryError } from '../../../../server/channels/delivery-error';
import { errcodeOf, throwOnErrcode, type ErrcodeRules } from '../../../../server/channels/errcode';
import type { HttpResponse } from '../../../../server/channels/http-client';

function reply(body: unknown, status = 200, headers: Record<string, string> = {}): HttpResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, text, json };
}

function caught(fn: () => unknown): DeliveryError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DeliveryError);
    return err as DeliveryError;
  }
  throw new Error('expected a DeliveryError');
}

const rules: ErrcodeRules = {
  transient: [-1, 130101],
  retryAfterMs: { 130101: 600_000 },
  hints: { 310000: 'a security setting refused it' },
};

describe('errcodeOf', () => {
  it('errcodeOf() reads numeric and numeric-string codes and ignores other bodies', () => {
    expect(errcodeOf(reply({ errcode: 0 }))).toBe(0);
    expect(errcodeOf(reply({ errcode: '45009' }))).toBe(45009);
    expect(errcodeOf(reply({ access_token: 'x' }))).toBeUndefined();
    expect(errcodeOf(reply('<html>'))).toBeUndefined();
    expect(errcodeOf(reply([1, 2]))).toBeUndefined();
  });
});

describe('throwOnErrcode', () => {
  it('throwOnErrcode() returns the parsed body when errcode is 0', () => {
    expect(throwOnErrcode(reply({ errcode: 0, errmsg: 'ok', msgid: 7 }), 'P', rules)).toEqual({
      errcode: 0,
      errmsg: 'ok',
      msgid: 7,
    });
  });

  it('throwOnErrcode() throws transient with the platform wait when the code is a rate limit', () => {
    const err = caught(() =>
      throwOnErrcode(reply({ errcode: 130101, errmsg: 'send too fast' }), 'DingTalk', rules),
    );
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBe(600_000);
    expect(err.message).toContain('errcode 130101');
    expect(err.reply).toContain('send too fast');
  });

  it('throwOnErrcode() throws permanent with the hint when the code is not listed as transient', () => {
    const err = caught(() =>
      throwOnErrcode(reply({ errcode: 310000, errmsg: 'sign not match' }), 'DingTalk', rules),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toBe(
      'DingTalk refused the message: errcode 310000 sign not match (a security setting refused it)',
    );
  });

  it('throwOnErrcode() classifies by the number alone whatever errmsg says', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom(-1, 130101, 300001, 310000), (errmsg, errcode) => {
        const err = caught(() => throwOnErrcode(reply({ errcode, errmsg }), 'P', rules));
        expect(err.retryable).toBe(errcode === -1 || errcode === 130101);
      }),
    );
  });

  it('throwOnErrcode() treats HTTP 5xx and 429 as transient and other statuses as permanent', () => {
    expect(caught(() => throwOnErrcode(reply('oops', 502), 'P', rules)).retryable).toBe(true);
    const limited = caught(() =>
      throwOnErrcode(reply('', 429, { 'retry-after': '3' }), 'P', rules),
    );
    expect(limited.retryable).toBe(true);
    expect(limited.retryAfterMs).toBe(3000);
    expect(caught(() => throwOnErrcode(reply('gone', 404), 'P', rules)).retryable).toBe(false);
  });

  it('throwOnErrcode() throws permanent when a 200 body is not the platform API', () => {
    const err = caught(() => throwOnErrcode(reply('<html>login</html>'), 'P', rules));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('not its API');
  });

  it('throwOnErrcode() accepts a body without errcode only when missingMeansOk is set', () => {
    const body = { access_token: 'abc', expires_in: 7200 };
    expect(caught(() => throwOnErrcode(reply(body), 'P', rules)).retryable).toBe(false);
    expect(throwOnErrcode(reply(body), 'P', { ...rules, missingMeansOk: true })).toEqual(body);
  });
});
