import { networkInterfaces } from 'node:os';

import type { HostedMessageEvent, QuietNotice } from './notifications';

/**
 * What main needs from the embedded server (server/index.ts). Main's logic is written and
 * tested against this shape, so it never depends on the server's internals.
 */

/** A person changed their read state (the server's `reads` event). */
export interface ReadsEvent {
  userId: number;
  unreadCount: number;
}

/** Options main passes to startServer. */
export interface EmbeddedServerOptions {
  host: string;
  port: number;
  dataDir: string;
  /** One-time secret; GET /api/console/desktop-login?secret=… signs the window in once. */
  desktopSecret: string;
  /**
   * The built console (renderer/dist). Passed explicitly because the server's default is
   * relative to its own source file, which inside the bundle is out/main/index.js.
   */
  rendererDir: string;
  /** Replace a data-folder lock another pid left (the desktop app is single-instance already). */
  takeOverDataDirLock: boolean;
  /** Scheduled backups daily into the data folder's backups/ until the user changes them. */
  backupsByDefault: boolean;
}

/** The running server as main uses it. */
export interface EmbeddedServer {
  url: string;
  /** The port it listens on: the one asked for, or the OS's choice when asked for 0. */
  port: number;
  close(): Promise<void>;
  events: {
    on(event: 'message', listener: (message: HostedMessageEvent) => void): unknown;
    off(event: 'message', listener: (message: HostedMessageEvent) => void): unknown;
    on(event: 'reads', listener: (reads: ReadsEvent) => void): unknown;
    off(event: 'reads', listener: (reads: ReadsEvent) => void): unknown;
    on(event: 'messageDeleted', listener: (deleted: { id: number }) => void): unknown;
    off(event: 'messageDeleted', listener: (deleted: { id: number }) => void): unknown;
    on(event: 'messagesPruned', listener: () => void): unknown;
    off(event: 'messagesPruned', listener: () => void): unknown;
  };
  deliveries: { pause(): void; resume(): void; readonly paused: boolean };
  /** Read state is per person: the user's unread count. */
  unreadCount(userId: number): Promise<number>;
  /** The user a session cookie's token signs in, or null. */
  userOfSession(token: string): Promise<number | null>;
  /** The one-time code for creating the first administrator; null once one exists. */
  setupCode(): string | null;
  /** Releases the data-folder lock synchronously (the OS is ending the session). */
  releaseNow(): void;
  /** Where the data is: the SQLite file, or the PostgreSQL URL without its password. */
  database: DatabaseLocation;
  /**
   * Quiet hours (issue 46 §1): the person's own rules for a notification, and the one-time move
   * of the old do-not-disturb switch into the first administrator's rule (null: no one yet).
   * Optional: main's test doubles leave it out.
   */
  quietHours?: {
    decide(userId: number, priority: number | null): Promise<QuietNotice | null>;
    migrateDoNotDisturb(timezone: string): Promise<number | null>;
  };
}

/** Where the embedded server keeps its data (shown in Settings → Desktop). */
export interface DatabaseLocation {
  dialect: 'sqlite' | 'postgres';
  location: string;
}

/** startServer's signature, injected so tests and boot never import the server eagerly. */
export type StartEmbeddedServer = (options: EmbeddedServerOptions) => Promise<EmbeddedServer>;

/** Why a port could not be had: another program holds it, or the OS refuses it. */
export type PortRefusal = 'in-use' | 'refused';

/**
 * portRefusalOf() recognises the server's PortInUseError (by name, so it works across bundles)
 * and a raw EADDRINUSE or EACCES from `listen`. EACCES is what Windows answers for ports in the
 * ranges Hyper-V, WSL or Docker reserve, which move at every boot: to the user it is the same
 * problem as a taken port, with the same way out. Anything else is null.
 */
export function portRefusalOf(err: unknown): PortRefusal | null {
  if (!(err instanceof Error)) return null;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES') return 'refused';
  if (code === 'EADDRINUSE') return 'in-use';
  return err.name === 'PortInUseError' ? 'in-use' : null;
}

/** isPortInUseError() is true for every error {@link portRefusalOf} recognises. */
export function isPortInUseError(err: unknown): boolean {
  return portRefusalOf(err) !== null;
}

/** The host to listen on: loopback unless the user opted into the LAN. */
export function listenHost(listenOnLan: boolean): string {
  return listenOnLan ? '0.0.0.0' : '127.0.0.1';
}

/**
 * windowUrlFor() is the URL the window loads: the server's URL with a wildcard listen address
 * replaced by loopback, so the window's origin (and the CSP, cookies and IPC origin check that
 * hang on it) stays http://127.0.0.1:<port> whether or not the LAN is on.
 */
export function windowUrlFor(serverUrl: string): string {
  const url = new URL(serverUrl);
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]' || url.hostname === '::') {
    url.hostname = '127.0.0.1';
  }
  return url.origin;
}

/** Addresses as os.networkInterfaces() returns them. */
export type InterfaceMap = Record<
  string,
  Array<{ address: string; family: string | number; internal: boolean }> | undefined
>;

/** lanUrlsFor() lists http://<ipv4>:<port> for every external IPv4 address of the machine. */
export function lanUrlsFor(port: number, interfaces: InterfaceMap = networkInterfaces()): string[] {
  const urls: string[] = [];
  for (const entries of Object.values(interfaces)) {
    for (const entry of entries ?? []) {
      const v4 = entry.family === 'IPv4' || entry.family === 4;
      if (v4 && !entry.internal) urls.push(`http://${entry.address}:${port}`);
    }
  }
  return urls;
}
