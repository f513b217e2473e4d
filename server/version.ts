import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Set by scripts/build-main.ts when the server is bundled into the Electron main process. */
declare const __HERALD_VERSION__: string | undefined;

/** The package version: injected into bundles, else read from package.json beside the code. */
export function readVersion(): string {
  if (typeof __HERALD_VERSION__ === 'string') return __HERALD_VERSION__;
  try {
    const pkg = JSON.parse(
      readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8'),
    ) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
