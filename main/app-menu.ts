/**
 * Herald's own application menu. Electron's default menu carries View → Reload and Toggle
 * Developer Tools (with their shortcuts, Ctrl/Cmd+R and Ctrl+Shift+I, active even while the
 * bar is hidden): in the packaged app a stray Ctrl+R would reload the console mid-edit, and
 * DevTools would hand anyone at the keyboard the signed-in session. They stay in development
 * builds only. macOS needs the app and Edit menus for Cmd+Q, Cmd+C and Cmd+V to work at all.
 */

/** A menu item in the shape Electron's Menu.buildFromTemplate takes (the parts used here). */
export interface AppMenuItem {
  id?: string;
  label?: string;
  role?: string;
  type?: 'normal' | 'separator' | 'submenu';
  accelerator?: string;
  click?: () => void;
  submenu?: AppMenuItem[];
}

/** What the menu's own items do. */
export interface AppMenuActions {
  openWindow(): void;
  openDataFolder(): void;
  openLogFolder(): void;
  /** Puts a `herald` launcher on PATH (main/cli-install.ts). */
  installCommandLineTool(): void;
}

/** Roles that give the page's developer tools or reload it; never in a packaged app. */
export const DEVELOPER_ROLES: ReadonlySet<string> = new Set([
  'reload',
  'forceReload',
  'toggleDevTools',
  'viewMenu',
]);

/**
 * appMenuTemplate() lays out the menu for `platform`; `isPackaged` leaves the developer items
 * out. Quit is the `quit` role, which goes through `before-quit` and so runs the ordered
 * shutdown like the tray's Quit.
 */
export function appMenuTemplate(
  platform: NodeJS.Platform,
  isPackaged: boolean,
  actions: AppMenuActions,
): AppMenuItem[] {
  const herald: AppMenuItem[] = [
    { id: 'open', label: 'Open Herald', click: () => actions.openWindow() },
    { id: 'data-folder', label: 'Open data folder', click: () => actions.openDataFolder() },
    { id: 'log-folder', label: 'Open log folder', click: () => actions.openLogFolder() },
    { type: 'separator' },
    {
      id: 'install-cli',
      label: 'Install command-line tool…',
      click: () => actions.installCommandLineTool(),
    },
  ];
  const view: AppMenuItem[] = [
    ...(isPackaged
      ? []
      : [
          { role: 'reload' },
          { role: 'forceReload' },
          { role: 'toggleDevTools' },
          { type: 'separator' as const },
        ]),
    { role: 'resetZoom' },
    { role: 'zoomIn' },
    { role: 'zoomOut' },
    { type: 'separator' },
    { role: 'togglefullscreen' },
  ];
  if (platform === 'darwin') {
    return [
      {
        label: 'Herald',
        submenu: [
          { role: 'about' },
          { type: 'separator' },
          ...herald,
          { type: 'separator' },
          { role: 'services' },
          { type: 'separator' },
          { role: 'hide' },
          { role: 'hideOthers' },
          { role: 'unhide' },
          { type: 'separator' },
          { role: 'quit' },
        ],
      },
      { role: 'editMenu' },
      { label: 'View', submenu: view },
      { role: 'windowMenu' },
    ];
  }
  return [
    { label: 'File', submenu: [...herald, { type: 'separator' }, { role: 'quit' }] },
    { role: 'editMenu' },
    { label: 'View', submenu: view },
  ];
}

/** Every role in a template, submenus included (what a test checks for developer items). */
export function menuRoles(template: AppMenuItem[]): string[] {
  return template.flatMap((item) => [
    ...(item.role ? [item.role] : []),
    ...menuRoles(item.submenu ?? []),
  ]);
}
