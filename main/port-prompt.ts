import { createHash } from 'node:crypto';

import type { PortConflict } from './port-choice';

/**
 * "Type a port…" at the port question. Electron's message boxes have no text field, so a small
 * window shows a page with one: a data: URL with an inline script, no preload and no Node,
 * sandboxed like the main window. The page answers by setting its title, which Electron reports
 * as `page-title-updated` (Electron's own tests load such a page in a sandboxed window): no IPC
 * channel, no navigation, nothing the page could misuse. Main checks the answer again.
 */

/** The ports the desktop app accepts (main/settings.ts): below 1024 needs root on Linux and macOS. */
export const PORT_RANGE = { min: 1024, max: 65535 } as const;

/** The page's answers, as the title it sets. */
export const PROMPT_TITLE = { port: 'herald-port:', cancel: 'herald-cancel' } as const;

/** The page's script: checks the field, then answers through the title. */
const SCRIPT = `
const form = document.getElementById('form');
const input = document.getElementById('port');
const error = document.getElementById('error');
form.addEventListener('submit', (event) => {
  event.preventDefault();
  const port = Number(input.value);
  if (!Number.isInteger(port) || port < ${PORT_RANGE.min} || port > ${PORT_RANGE.max}) {
    error.hidden = false;
    input.focus();
    return;
  }
  document.title = '${PROMPT_TITLE.port}' + port;
});
document.getElementById('cancel').addEventListener('click', () => {
  document.title = '${PROMPT_TITLE.cancel}';
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') document.title = '${PROMPT_TITLE.cancel}';
});
input.focus();
`;

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * portPromptPage() is the page's HTML. Its CSP lets only this script run (by its hash) and
 * nothing load: the page needs nothing from anywhere.
 */
export function portPromptPage(conflict: Pick<PortConflict, 'port'>): string {
  const hash = createHash('sha256').update(SCRIPT).digest('base64');
  const csp = `default-src 'none'; script-src 'sha256-${hash}'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>Herald: choose a port</title>
<style>
  body { font: 14px system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 20px; color: #1f2329; }
  @media (prefers-color-scheme: dark) { body { background: #1d1e1f; color: #e5eaf3; } }
  label { display: block; margin-bottom: 6px; }
  input { font: inherit; width: 8em; padding: 4px 6px; }
  p { margin: 0 0 12px; }
  .hint { color: #5a5e66; font-size: 12px; }
  @media (prefers-color-scheme: dark) { .hint { color: #a3a6ad; } }
  .error { color: #c45656; }
  .buttons { margin-top: 16px; display: flex; gap: 8px; justify-content: flex-end; }
  button { font: inherit; padding: 4px 14px; }
</style></head>
<body>
<form id="form" novalidate>
  <p>Port ${escapeHtml(String(conflict.port))} cannot be used. Scripts send their messages to the port you choose here, and Herald keeps it.</p>
  <label for="port">Port (${PORT_RANGE.min}–${PORT_RANGE.max})</label>
  <input id="port" name="port" type="number" min="${PORT_RANGE.min}" max="${PORT_RANGE.max}" required>
  <p id="error" class="error" hidden>Type a whole number from ${PORT_RANGE.min} to ${PORT_RANGE.max}.</p>
  <p class="hint">On Windows, netsh interface ipv4 show excludedportrange protocol=tcp lists the ports Hyper-V, WSL or Docker reserve.</p>
  <div class="buttons"><button type="button" id="cancel">Cancel</button><button type="submit" id="use">Use this port</button></div>
</form>
<script>${SCRIPT}</script>
</body></html>`;
}

/** portPromptUrl() is the page as the window loads it. */
export function portPromptUrl(conflict: Pick<PortConflict, 'port'>): string {
  return `data:text/html;charset=utf-8,${encodeURIComponent(portPromptPage(conflict))}`;
}

/**
 * promptAnswer() reads a title the page set: a port main accepts, 'cancel', or null for any
 * other title (the page's own, or something it should never say).
 */
export function promptAnswer(title: string): number | 'cancel' | null {
  if (title === PROMPT_TITLE.cancel) return 'cancel';
  if (!title.startsWith(PROMPT_TITLE.port)) return null;
  const text = title.slice(PROMPT_TITLE.port.length);
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= PORT_RANGE.min && port <= PORT_RANGE.max ? port : null;
}

/** The window options of the prompt: small, fixed, and as locked down as the main window. */
export function portPromptWindowOptions() {
  return {
    // The page's own size, whatever frame the OS draws around it.
    width: 460,
    height: 250,
    useContentSize: true,
    resizable: false,
    minimizable: false,
    maximizable: false,
    fullscreenable: false,
    show: false,
    title: 'Herald: choose a port',
    autoHideMenuBar: true,
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  } as const;
}

export type PortPromptWindowOptions = ReturnType<typeof portPromptWindowOptions>;

/** The part of a BrowserWindow the prompt uses. */
export interface PromptWindowLike {
  loadURL(url: string): Promise<void>;
  once(event: 'ready-to-show', listener: () => void): unknown;
  once(event: 'closed', listener: () => void): unknown;
  on(
    event: 'page-title-updated',
    listener: (event: { preventDefault(): void }, title: string) => void,
  ): unknown;
  show(): void;
  close(): void;
  isDestroyed(): boolean;
}

/**
 * promptForPort() opens the prompt and resolves the port typed, or null when the user cancels
 * or closes the window (or it cannot load).
 */
export function promptForPort(
  conflict: Pick<PortConflict, 'port'>,
  createWindow: (options: PortPromptWindowOptions) => PromptWindowLike,
): Promise<number | null> {
  const win = createWindow(portPromptWindowOptions());
  return new Promise((resolve) => {
    let settled = false;
    const finish = (port: number | null): void => {
      if (settled) return;
      settled = true;
      resolve(port);
      if (!win.isDestroyed()) win.close();
    };
    win.on('page-title-updated', (event, title) => {
      // The window keeps its own title; the page's is only its answer.
      event.preventDefault();
      const answer = promptAnswer(title);
      if (answer === 'cancel') finish(null);
      else if (answer !== null) finish(answer);
    });
    win.once('closed', () => finish(null));
    win.once('ready-to-show', () => win.show());
    win.loadURL(portPromptUrl(conflict)).catch(() => finish(null));
  });
}
