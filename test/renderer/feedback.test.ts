import { afterEach, describe, expect, it, vi } from 'vitest';
import { effectScope } from 'vue';

import { ApiError } from '../../renderer/src/api/http-client';
import {
  errorCode,
  errorText,
  runAction,
  toastError,
  toastSuccess,
} from '../../renderer/src/lib/feedback';
import { useLoad } from '../../renderer/src/lib/use-load';
import { settle } from './helpers/mount';

/** The toasts Element Plus has put on the page, newest last. */
const toasts = () =>
  [...document.querySelectorAll('.el-message')].map((el) => ({
    type: [...el.classList].find((c) => c.startsWith('el-message--'))?.slice('el-message--'.length),
    text: el.querySelector('.el-message__content')?.textContent?.trim(),
  }));

afterEach(() => {
  document.body.innerHTML = '';
});

describe('errorText() and errorCode()', () => {
  it('errorText() is the server msg exactly as sent, or the error’s own message', () => {
    expect(errorText(new ApiError(409, '渠道正被 2 个实例使用'))).toBe('渠道正被 2 个实例使用');
    expect(errorText(new Error('boom'))).toBe('boom');
    expect(errorText('plain')).toBe('plain');
  });

  it('errorCode() is the envelope code of a failed call, and null for other errors', () => {
    expect(errorCode(new ApiError(429, 'slow down'))).toBe(429);
    expect(errorCode(new ApiError(0, 'Network error'))).toBe(0);
    expect(errorCode(new Error('boom'))).toBeNull();
  });
});

describe('rule 3: actions toast', () => {
  it('runAction() toasts the success text and resolves true when the action works', async () => {
    const action = vi.fn(async () => 'done');

    const ok = await runAction(action, 'Deleted');
    await settle();

    expect(ok).toBe(true);
    expect(action).toHaveBeenCalledTimes(1);
    expect(toasts()).toEqual([{ type: 'success', text: 'Deleted' }]);
  });

  it('runAction() toasts the server msg as an error and resolves false instead of throwing', async () => {
    const ok = await runAction(async () => {
      throw new ApiError(400, 'runAt: 2026-11-01T00:00:00.000Z has passed; pick a later time');
    }, 'Saved');
    await settle();

    expect(ok).toBe(false);
    expect(toasts()).toEqual([
      { type: 'error', text: 'runAt: 2026-11-01T00:00:00.000Z has passed; pick a later time' },
    ]);
  });

  it('runAction() without a success text says nothing when the action works', async () => {
    await runAction(async () => undefined);
    await settle();

    expect(toasts()).toEqual([]);
  });

  it('toastError() puts the context before the msg, and the toast can be closed', async () => {
    toastError(new ApiError(409, 'used by the instances of task "nightly"'), 'Cannot delete');
    toastSuccess('Copied');
    await settle();

    expect(toasts()).toEqual([
      { type: 'error', text: 'Cannot delete: used by the instances of task "nightly"' },
      { type: 'success', text: 'Copied' },
    ]);
    expect(document.querySelector('.el-message--error .el-message__closeBtn')).not.toBeNull();
  });
});

describe('rule 1: useLoad()', () => {
  function setup<T>(fetchData: () => Promise<T>) {
    const scope = effectScope();
    return scope.run(() => useLoad(fetchData))!;
  }

  it('load() puts the server msg in error instead of throwing, and keeps the last data', async () => {
    let fail = false;
    const loader = setup(async () => {
      if (fail) throw new ApiError(503, '数据库忙，请稍后再试');
      return { n: 1 };
    });

    await loader.load();
    fail = true;
    await expect(loader.load()).resolves.toBeUndefined();

    expect(loader.error.value).toBe('数据库忙，请稍后再试');
    expect(loader.data.value).toEqual({ n: 1 });
    expect(loader.loaded.value).toBe(true);
    expect(loader.loading.value).toBe(false);
  });

  it('load() applies only the newest answer when an older one arrives later', async () => {
    const releases: Array<(value: string) => void> = [];
    const loader = setup(() => new Promise<string>((resolve) => releases.push(resolve)));

    const older = loader.load();
    const newer = loader.load();
    releases[1]('new');
    await newer;
    releases[0]('old');
    await older;

    expect(loader.data.value).toBe('new');
  });

  it('reset() forgets the data and drops the answer of a load under way', async () => {
    let release: (value: string) => void = () => undefined;
    const loader = setup(() => new Promise<string>((resolve) => (release = resolve)));
    const pending = loader.load();

    loader.reset();
    release('stale');
    await pending;

    expect(loader.data.value).toBeNull();
    expect(loader.loaded.value).toBe(false);
    expect(loader.loading.value).toBe(false);
  });
});
