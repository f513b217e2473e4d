/**
 * The tray icon: its label from the unread hosted-message count and its menu. The text and the
 * menu template are pure (unit-tested); the controller applies them to Electron's Tray.
 */

/** What the tray shows. */
export interface TrayState {
  unread: number;
  deliveriesPaused: boolean;
  doNotDisturb: boolean;
}

/** Texts derived from the state. */
export interface TrayText {
  /** Hover text (Windows, macOS, most Linux trays). */
  tooltip: string;
  /** Short text beside the icon in the macOS menu bar; empty when nothing is unread. */
  title: string;
  /** First, disabled menu line: the only place Linux app-indicator trays show the count. */
  headline: string;
}

/** unreadBadge() shortens a count for the menu bar: '' for none, '99+' above 99. */
export function unreadBadge(unread: number): string {
  if (!Number.isFinite(unread) || unread <= 0) return '';
  return unread > 99 ? '99+' : String(Math.floor(unread));
}

/** unreadPhrase() spells the count out: "no unread messages", "1 unread message", "3 …". */
export function unreadPhrase(unread: number): string {
  const n = Number.isFinite(unread) && unread > 0 ? Math.floor(unread) : 0;
  if (n === 0) return 'no unread messages';
  return n === 1 ? '1 unread message' : `${n} unread messages`;
}

/** trayText() builds the tray's texts from the unread count and the pause/DND switches. */
export function trayText(state: TrayState): TrayText {
  const extras = [
    state.deliveriesPaused ? 'deliveries paused' : '',
    state.doNotDisturb ? 'do not disturb' : '',
  ].filter(Boolean);
  const headline = unreadPhrase(state.unread);
  const suffix = extras.length > 0 ? ` (${extras.join(', ')})` : '';
  return {
    tooltip: `Herald: ${headline}${suffix}`,
    title: unreadBadge(state.unread),
    headline: headline.charAt(0).toUpperCase() + headline.slice(1),
  };
}

/** What the tray menu can do. */
export interface TrayActions {
  openWindow(): void;
  setDeliveriesPaused(paused: boolean): void;
  setDoNotDisturb(on: boolean): void;
  openDataFolder(): void;
  openLogFolder(): void;
  quit(): void;
}

/**
 * trayIconFile() names the tray image in out/main/assets for `platform`: macOS gets the black
 * template pair (trayTemplate.png, @2x picked on Retina), which it tints for light and dark menu
 * bars; a colour icon there would ignore the menu bar's appearance. Others get the colour icon.
 */
export function trayIconFile(platform: NodeJS.Platform): string {
  return platform === 'darwin' ? 'trayTemplate.png' : 'tray.png';
}

/** A menu item in the shape Electron's Menu.buildFromTemplate takes. */
export interface TrayMenuItem {
  id?: string;
  label?: string;
  type?: 'normal' | 'separator' | 'checkbox';
  checked?: boolean;
  enabled?: boolean;
  click?: () => void;
}

/**
 * trayMenuTemplate() lays out the menu: the unread headline, Open, pause or resume deliveries,
 * do-not-disturb, the data and log folders, Quit. Quit really quits (runs the ordered shutdown), unlike
 * the window's close button.
 */
export function trayMenuTemplate(state: TrayState, actions: TrayActions): TrayMenuItem[] {
  return [
    { id: 'unread', label: trayText(state).headline, enabled: false },
    { type: 'separator' },
    { id: 'open', label: 'Open Herald', click: () => actions.openWindow() },
    {
      id: 'deliveries',
      label: state.deliveriesPaused ? 'Resume deliveries' : 'Pause deliveries',
      click: () => actions.setDeliveriesPaused(!state.deliveriesPaused),
    },
    {
      id: 'dnd',
      label: 'Do not disturb',
      type: 'checkbox',
      checked: state.doNotDisturb,
      click: () => actions.setDoNotDisturb(!state.doNotDisturb),
    },
    { id: 'data-folder', label: 'Open data folder', click: () => actions.openDataFolder() },
    { id: 'log-folder', label: 'Open log folder', click: () => actions.openLogFolder() },
    { type: 'separator' },
    { id: 'quit', label: 'Quit Herald', click: () => actions.quit() },
  ];
}

/** The part of Electron's Tray the controller drives. */
export interface TrayLike {
  setToolTip(text: string): void;
  setTitle(text: string): void;
  setContextMenu(menu: unknown): void;
  destroy(): void;
}

/** Turns a template into a native menu (Electron's Menu.buildFromTemplate). */
export type BuildMenu = (template: TrayMenuItem[]) => unknown;

/** Applies state changes to the tray. */
export interface TrayController {
  /** Merges `patch` into the state and redraws the label and the menu. */
  update(patch: Partial<TrayState>): void;
  readonly state: TrayState;
  readonly text: TrayText;
  destroy(): void;
}

/** createTrayController() redraws `tray` whenever the state changes. */
export function createTrayController(
  tray: TrayLike,
  buildMenu: BuildMenu,
  actions: TrayActions,
  initial: TrayState,
  platform: NodeJS.Platform = process.platform,
): TrayController {
  let state = { ...initial };
  let destroyed = false;
  const draw = (): void => {
    if (destroyed) return;
    const text = trayText(state);
    tray.setToolTip(text.tooltip);
    // setTitle exists on every platform but only macOS shows it next to the icon.
    if (platform === 'darwin') tray.setTitle(text.title);
    // Linux trays keep the menu they were given, so it is rebuilt on every change.
    tray.setContextMenu(buildMenu(trayMenuTemplate(state, actions)));
  };
  draw();
  return {
    update(patch) {
      const next = { ...state, ...patch };
      if (
        next.unread === state.unread &&
        next.deliveriesPaused === state.deliveriesPaused &&
        next.doNotDisturb === state.doNotDisturb
      ) {
        return;
      }
      state = next;
      draw();
    },
    get state() {
      return { ...state };
    },
    get text() {
      return trayText(state);
    },
    destroy() {
      destroyed = true;
      tray.destroy();
    },
  };
}
