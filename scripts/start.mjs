/**
 * `npm start` and `npm run serve`, in plain JavaScript so that no TypeScript loader runs in
 * production: builds the server bundle when it is missing or older than its sources (about a
 * second, see scripts/build-server.mjs), then runs the compiled launcher in this process.
 * Headless, Herald's server then runs here too; the desktop app runs in a spawned Electron.
 */
import { clearInterval, setInterval } from 'node:timers';
import { pathToFileURL } from 'node:url';

import { ensureServerBuilt, launcherFile } from './build-server.mjs';

process.env.NODE_ENV ??= 'production';

// Under npm this process is the child of npm's `sh -c`. npm passes a SIGTERM or SIGINT on to
// that shell, which ends without passing it to Herald (dash runs the command as its child), so
// `npm start &` then `kill $!` left Herald running and holding its folder. When the parent
// that started us is gone, Herald stops as if it had been told to: the same ordered shutdown.
// Started without npm (`node scripts/start.mjs &`, a service unit), the parent's exit means
// nothing and is not watched.
if (process.env.npm_lifecycle_event && process.platform !== 'win32') {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 500);
  watch.unref();
}

try {
  if (await ensureServerBuilt()) console.log('Built the server bundle (out/server).');
  const { launch } = await import(pathToFileURL(launcherFile).href);
  await launch(process.argv.slice(2));
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
