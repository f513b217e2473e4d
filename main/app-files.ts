import path from 'node:path';

import { trayIconFile } from './tray';

/**
 * Every file the main process opens from the app folder at run time, derived from the folder
 * of out/main/index.js (`mainDir`): inside app.asar when packaged, out/main in the repository.
 * boot.ts takes its paths from here, and the packaging test checks that each one, for every
 * platform, is in the packaged app, so the two cannot drift apart.
 */
export interface AppFiles {
  /** The bundled, sandboxed preload (CommonJS). */
  preload: string;
  /** The window's icon. */
  windowIcon: string;
  /** The tray image for a platform (macOS gets a template image). */
  trayIcon(platform: NodeJS.Platform): string;
  /** Windows' taskbar overlay while messages are unread. */
  unreadOverlay: string;
  /** The built console, which the embedded server serves. */
  rendererDir: string;
}

/** appFiles() lays out the app's run-time files around `mainDir`. */
export function appFiles(mainDir: string): AppFiles {
  const assets = path.join(mainDir, 'assets');
  return {
    preload: path.join(mainDir, '..', 'preload', 'index.cjs'),
    windowIcon: path.join(assets, 'icon.png'),
    trayIcon: (platform) => path.join(assets, trayIconFile(platform)),
    unreadOverlay: path.join(assets, 'unread-overlay.png'),
    // out/main → the app root, in the repository and inside app.asar alike.
    rendererDir: path.join(mainDir, '..', '..', 'renderer', 'dist'),
  };
}

/** The platforms the desktop app is packaged for. */
export const DESKTOP_PLATFORMS: readonly NodeJS.Platform[] = ['darwin', 'linux', 'win32'];

/**
 * appFilesUsed() lists every file appFiles() names across the packaged platforms, each once,
 * with the console's entry page standing for its folder.
 */
export function appFilesUsed(mainDir: string): string[] {
  const files = appFiles(mainDir);
  return [
    ...new Set([
      files.preload,
      files.windowIcon,
      ...DESKTOP_PLATFORMS.map((platform) => files.trayIcon(platform)),
      files.unreadOverlay,
      path.join(files.rendererDir, 'index.html'),
    ]),
  ];
}
