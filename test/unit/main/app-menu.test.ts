import { describe, expect, it, vi } from 'vitest';

import {
  appMenuTemplate,
  DEVELOPER_ROLES,
  menuRoles,
  type AppMenuActions,
  type AppMenuItem,
} from '../../../main/app-menu';

const PLATFORMS: NodeJS.Platform[] = ['darwin', 'win32', 'linux'];

function actions() {
  return {
    openWindow: vi.fn(),
    openDataFolder: vi.fn(),
    openLogFolder: vi.fn(),
    installCommandLineTool: vi.fn(),
  } satisfies AppMenuActions;
}

function findItem(template: AppMenuItem[], id: string): AppMenuItem | undefined {
  for (const item of template) {
    if (item.id === id) return item;
    const inner = findItem(item.submenu ?? [], id);
    if (inner) return inner;
  }
  return undefined;
}

const topLabels = (template: AppMenuItem[]): (string | undefined)[] =>
  template.map((item) => item.label ?? item.role);

describe('menuRoles', () => {
  it('menuRoles() lists roles of nested submenus as well as top-level ones', () => {
    expect(
      menuRoles([
        { role: 'editMenu' },
        { label: 'A', submenu: [{ role: 'quit' }, { label: 'B', submenu: [{ role: 'reload' }] }] },
        { type: 'separator' },
      ]),
    ).toEqual(['editMenu', 'quit', 'reload']);
  });
});

describe('appMenuTemplate', () => {
  it.each(PLATFORMS)(
    'appMenuTemplate() leaves every developer role out of a packaged build on %s',
    (platform) => {
      const roles = menuRoles(appMenuTemplate(platform, true, actions()));

      expect(roles.filter((role) => DEVELOPER_ROLES.has(role))).toEqual([]);
      // Zoom stays: it is no developer tool.
      expect(roles).toContain('resetZoom');
    },
  );

  it.each(PLATFORMS)(
    'appMenuTemplate() offers reload, forceReload and toggleDevTools in development on %s',
    (platform) => {
      const roles = menuRoles(appMenuTemplate(platform, false, actions()));

      expect(roles).toEqual(expect.arrayContaining(['reload', 'forceReload', 'toggleDevTools']));
    },
  );

  it.each([true, false])(
    'appMenuTemplate() never uses the viewMenu role (packaged: %s), which would bring reload and DevTools back',
    (isPackaged) => {
      for (const platform of PLATFORMS) {
        expect(menuRoles(appMenuTemplate(platform, isPackaged, actions()))).not.toContain(
          'viewMenu',
        );
      }
    },
  );

  it('appMenuTemplate() gives macOS the Herald app menu, the Edit menu and the Window menu', () => {
    const template = appMenuTemplate('darwin', true, actions());

    expect(topLabels(template)).toEqual(['Herald', 'editMenu', 'View', 'windowMenu']);
    const appMenuRoles = menuRoles(template[0]?.submenu ?? []);
    expect(appMenuRoles).toEqual(expect.arrayContaining(['about', 'hide', 'quit']));
    expect(findItem(template[0]?.submenu ?? [], 'open')?.label).toBe('Open Herald');
  });

  it.each(['win32', 'linux'] as const)(
    'appMenuTemplate() gives %s a File menu ending in Quit, and the Edit menu',
    (platform) => {
      const template = appMenuTemplate(platform, true, actions());

      expect(topLabels(template)).toEqual(['File', 'editMenu', 'View']);
      const file = template[0]?.submenu ?? [];
      expect(file.at(-1)?.role).toBe('quit');
      expect(file.map((item) => item.id).filter(Boolean)).toEqual([
        'open',
        'data-folder',
        'log-folder',
        'install-cli',
      ]);
      // macOS-only roles would be dead entries here.
      expect(menuRoles(template)).not.toContain('windowMenu');
      expect(menuRoles(template)).not.toContain('about');
    },
  );

  it.each(PLATFORMS)('appMenuTemplate() items call their own action on %s', (platform) => {
    const calls = actions();
    const template = appMenuTemplate(platform, true, calls);

    const open = findItem(template, 'open');
    expect(open?.label).toBe('Open Herald');
    open?.click?.();
    expect(calls.openWindow).toHaveBeenCalledTimes(1);
    expect(calls.openDataFolder).not.toHaveBeenCalled();
    expect(calls.openLogFolder).not.toHaveBeenCalled();

    const data = findItem(template, 'data-folder');
    expect(data?.label).toBe('Open data folder');
    data?.click?.();
    expect(calls.openDataFolder).toHaveBeenCalledTimes(1);
    expect(calls.openLogFolder).not.toHaveBeenCalled();

    const logs = findItem(template, 'log-folder');
    expect(logs?.label).toBe('Open log folder');
    logs?.click?.();
    expect(calls.openLogFolder).toHaveBeenCalledTimes(1);
    expect(calls.openWindow).toHaveBeenCalledTimes(1);

    const cli = findItem(template, 'install-cli');
    expect(cli?.label).toBe('Install command-line tool…');
    expect(calls.installCommandLineTool).not.toHaveBeenCalled();
    cli?.click?.();
    expect(calls.installCommandLineTool).toHaveBeenCalledTimes(1);
    expect(calls.openLogFolder).toHaveBeenCalledTimes(1);
  });
});
