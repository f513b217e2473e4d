import { describe, expect, it } from 'vitest';

import { MainToRenderer } from '../../../main/ipc/channels';
import { createReaderLink, type ReaderWindowLike } from '../../../main/reader-link';

const ORIGIN = 'http://127.0.0.1:8765';

function fakeWindow(id: number, loadError: Error | null = null) {
  const sent: unknown[][] = [];
  const loaded: string[] = [];
  const win: ReaderWindowLike = {
    webContents: { id, send: (channel, ...args) => void sent.push([channel, ...args]) },
    loadURL: async (url) => {
      loaded.push(url);
      if (loadError) throw loadError;
    },
  };
  return { win, sent, loaded };
}

describe('createReaderLink', () => {
  it('open() loads the reader URL while no page listens', () => {
    const link = createReaderLink(ORIGIN, () => undefined);
    const { win, sent, loaded } = fakeWindow(1);

    expect(link.open(win, 42)).toBe('load');
    expect(loaded).toEqual([`${ORIGIN}/messages/42`]);
    expect(sent).toEqual([]);
  });

  it('open() hands the id to the page that listens, without a reload', () => {
    const link = createReaderLink(ORIGIN, () => undefined);
    const { win, sent, loaded } = fakeWindow(1);
    link.listening(1);

    expect(link.open(win, 42)).toBe('in-page');
    expect(sent).toEqual([[MainToRenderer.openMessage, 42]]);
    expect(loaded).toEqual([]);
  });

  it('open() loads again once the listening page unloaded, or in another window', () => {
    const link = createReaderLink(ORIGIN, () => undefined);
    const first = fakeWindow(1);
    const second = fakeWindow(2);
    link.listening(1);

    expect(link.open(second.win, 7)).toBe('load');
    link.unloaded(2);
    expect(link.open(first.win, 7)).toBe('in-page');
    link.unloaded(1);
    expect(link.open(first.win, 8)).toBe('load');
    expect(first.loaded).toEqual([`${ORIGIN}/messages/8`]);
  });

  it('open() reports a failed load instead of throwing', async () => {
    const errors: unknown[] = [];
    const link = createReaderLink(ORIGIN, (err) => errors.push(err));
    const { win } = fakeWindow(1, new Error('net::ERR_FAILED'));

    expect(link.open(win, 1)).toBe('load');
    await new Promise((r) => setTimeout(r, 0));
    expect(errors).toEqual([new Error('net::ERR_FAILED')]);
  });
});
