import { describe, expect, it, vi } from 'vitest';

import {
  createTrayController,
  trayIconFile,
  trayMenuTemplate,
  trayText,
  unreadBadge,
  unreadPhrase,
  type TrayActions,
  type TrayLike,
  type TrayMenuItem,
} from '../../../main/tray';

const quiet = { unread: 0, deliveriesPaused: false, doNotDisturb: false };

function actions() {
  return {
    openWindow: vi.fn(),
    setDeliveriesPaused: vi.fn((_paused: boolean) => undefined),
    setDoNotDisturb: vi.fn((_on: boolean) => undefined),
    openDataFolder: vi.fn(),
    openLogFolder: vi.fn(),
    quit: vi.fn(),
  } satisfies TrayActions;
}

describe('trayText', () => {
  it('trayText() says nothing is unread and leaves the menu-bar title empty at zero', () => {
    expect(trayText(quiet)).toEqual({
      tooltip: 'Herald: no unread messages',
      title: '',
      headline: 'No unread messages',
    });
  });

  it('trayText() uses the singular for one message', () => {
    expect(trayText({ ...quiet, unread: 1 })).toEqual({
      tooltip: 'Herald: 1 unread message',
      title: '1',
      headline: '1 unread message',
    });
  });

  it('trayText() spells the full count but caps the menu-bar title at 99+', () => {
    const text = trayText({ ...quiet, unread: 1234 });

    expect(text.tooltip).toBe('Herald: 1234 unread messages');
    expect(text.title).toBe('99+');
  });

  it('trayText() mentions paused deliveries and do-not-disturb in the tooltip', () => {
    expect(trayText({ unread: 2, deliveriesPaused: true, doNotDisturb: true }).tooltip).toBe(
      'Herald: 2 unread messages (deliveries paused, do not disturb)',
    );
  });
});

describe('unreadBadge and unreadPhrase', () => {
  it('unreadBadge() and unreadPhrase() treat negative, fractional and NaN counts safely', () => {
    expect(unreadBadge(-3)).toBe('');
    expect(unreadBadge(Number.NaN)).toBe('');
    expect(unreadBadge(99)).toBe('99');
    expect(unreadBadge(100)).toBe('99+');
    expect(unreadPhrase(2.7)).toBe('2 unread messages');
    expect(unreadPhrase(Number.NaN)).toBe('no unread messages');
  });
});

describe('trayMenuTemplate', () => {
  const byId = (items: TrayMenuItem[], id: string) => items.find((i) => i.id === id)!;

  it('trayMenuTemplate() lists the count, open, deliveries, do-not-disturb, the folders and quit', () => {
    const items = trayMenuTemplate({ ...quiet, unread: 3 }, actions());

    expect(items.filter((i) => i.type !== 'separator').map((i) => i.label)).toEqual([
      '3 unread messages',
      'Open Herald',
      'Pause deliveries',
      'Do not disturb',
      'Open data folder',
      'Open log folder',
      'Quit Herald',
    ]);
    expect(byId(items, 'unread').enabled).toBe(false);
  });

  it('trayMenuTemplate() offers to resume when deliveries are paused and resumes on click', () => {
    const a = actions();
    const item = byId(trayMenuTemplate({ ...quiet, deliveriesPaused: true }, a), 'deliveries');

    item.click!();

    expect(item.label).toBe('Resume deliveries');
    expect(a.setDeliveriesPaused).toHaveBeenCalledWith(false);
  });

  it('trayMenuTemplate() shows do-not-disturb as a checkbox that toggles it', () => {
    const a = actions();
    const item = byId(trayMenuTemplate({ ...quiet, doNotDisturb: false }, a), 'dnd');

    item.click!();

    expect(item).toMatchObject({ type: 'checkbox', checked: false });
    expect(a.setDoNotDisturb).toHaveBeenCalledWith(true);
  });

  it('trayMenuTemplate() wires open, the data and log folders and quit to their actions', () => {
    const a = actions();
    const items = trayMenuTemplate(quiet, a);

    byId(items, 'open').click!();
    byId(items, 'data-folder').click!();
    byId(items, 'log-folder').click!();
    byId(items, 'quit').click!();

    expect(a.openWindow).toHaveBeenCalledOnce();
    expect(a.openDataFolder).toHaveBeenCalledOnce();
    expect(a.openLogFolder).toHaveBeenCalledOnce();
    expect(a.quit).toHaveBeenCalledOnce();
  });
});

describe('trayIconFile', () => {
  it('trayIconFile() gives macOS the template image and everyone else the colour icon', () => {
    expect(trayIconFile('darwin')).toBe('trayTemplate.png');
    expect(trayIconFile('win32')).toBe('tray.png');
    expect(trayIconFile('linux')).toBe('tray.png');
  });
});

describe('createTrayController', () => {
  function fakeTray() {
    return {
      setToolTip: vi.fn(),
      setTitle: vi.fn(),
      setContextMenu: vi.fn(),
      destroy: vi.fn(),
    } satisfies TrayLike;
  }

  it('update() redraws the tooltip and the menu when the unread count changes', () => {
    const tray = fakeTray();
    const controller = createTrayController(tray, (t) => t, actions(), quiet, 'linux');

    controller.update({ unread: 5 });

    expect(tray.setToolTip).toHaveBeenLastCalledWith('Herald: 5 unread messages');
    const menu = tray.setContextMenu.mock.calls.at(-1)![0] as TrayMenuItem[];
    expect(menu[0]!.label).toBe('5 unread messages');
    expect(tray.setTitle).not.toHaveBeenCalled();
  });

  it('update() sets the menu-bar title on macOS only', () => {
    const tray = fakeTray();
    const controller = createTrayController(tray, (t) => t, actions(), quiet, 'darwin');

    controller.update({ unread: 2 });

    expect(tray.setTitle).toHaveBeenLastCalledWith('2');
  });

  it('update() skips redrawing when nothing changed and stops after destroy()', () => {
    const tray = fakeTray();
    const controller = createTrayController(tray, (t) => t, actions(), quiet, 'linux');
    const draws = tray.setToolTip.mock.calls.length;

    controller.update({ unread: 0 });
    controller.destroy();
    controller.update({ unread: 9 });

    expect(tray.setToolTip.mock.calls.length).toBe(draws);
    expect(tray.destroy).toHaveBeenCalledOnce();
  });
});
