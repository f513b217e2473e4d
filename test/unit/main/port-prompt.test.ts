import { describe, expect, it } from 'vitest';

import {
  portPromptPage,
  portPromptUrl,
  portPromptWindowOptions,
  promptAnswer,
  promptForPort,
} from '../../../main/port-prompt';
import { FakePromptWindow } from '../../mocks/electron';

describe('the port prompt', () => {
  it('promptAnswer() takes only a port main accepts, or the cancel', () => {
    expect(promptAnswer('herald-port:9000')).toBe(9000);
    expect(promptAnswer('herald-port:65535')).toBe(65535);
    expect(promptAnswer('herald-cancel')).toBe('cancel');
    for (const title of [
      'Herald: choose a port',
      'herald-port:80',
      'herald-port:65536',
      'herald-port:9000.5',
      'herald-port:9e3',
      'herald-port:',
      'herald-port:123456',
      'herald-port: 9000',
    ]) {
      expect([title, promptAnswer(title)]).toEqual([title, null]);
    }
  });

  it('portPromptWindowOptions() is sandboxed, isolated and without Node or a preload', () => {
    const options = portPromptWindowOptions();
    expect(options.webPreferences).toEqual({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    });
    expect(options.webPreferences).not.toHaveProperty('preload');
    expect(options.show).toBe(false);
  });

  it('portPromptPage() lets only its own script run, by hash, and names the port refused', () => {
    const page = portPromptPage({ port: 8765 });
    expect(page).toMatch(/content="default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(page).not.toContain("unsafe-inline'; script");
    expect(page).toContain('Port 8765 cannot be used');
    expect(
      decodeURIComponent(
        portPromptUrl({ port: 8765 }).slice('data:text/html;charset=utf-8,'.length),
      ),
    ).toBe(page);
  });

  it('promptForPort() resolves the port the page answers, keeps the window’s title and closes it', async () => {
    let win!: FakePromptWindow;
    const answer = promptForPort(
      { port: 8765 },
      (options) => (win = new FakePromptWindow(options)),
    );
    await Promise.resolve();
    expect(win.visible).toBe(true);
    expect(win.loaded[0]).toBe(portPromptUrl({ port: 8765 }));

    // A title the page should never set changes nothing.
    win.pageSetsTitle('herald-port:80');
    expect(win.destroyed).toBe(false);
    win.pageSetsTitle('herald-port:9123');

    await expect(answer).resolves.toBe(9123);
    expect(win.destroyed).toBe(true);
    expect(win.keptTitles).toEqual(['Herald: choose a port', 'herald-port:80', 'herald-port:9123']);
  });

  it('promptForPort() resolves null for Cancel, Escape and the close button', async () => {
    let win!: FakePromptWindow;
    const cancelled = promptForPort(
      { port: 1 },
      (options) => (win = new FakePromptWindow(options)),
    );
    win.pageSetsTitle('herald-cancel');
    await expect(cancelled).resolves.toBeNull();

    const closed = promptForPort({ port: 1 }, (options) => (win = new FakePromptWindow(options)));
    win.close();
    await expect(closed).resolves.toBeNull();
  });

  it('promptForPort() resolves null when the page cannot load', async () => {
    let win!: FakePromptWindow;
    const failed = promptForPort({ port: 1 }, (options) => {
      win = new FakePromptWindow(options);
      win.loadURL = async () => {
        throw Object.assign(new Error('ERR_FAILED (-2) loading data:…'), { code: 'ERR_FAILED' });
      };
      return win;
    });
    await expect(failed).resolves.toBeNull();
    expect(win.destroyed).toBe(true);
  });
});
