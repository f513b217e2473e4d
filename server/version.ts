import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { appRoot } from './lib/app-root';

/** Set by the bundlers (scripts/build-main.ts, scripts/build-server.mjs). */
declare const __HERALD_VERSION__: string | undefined;

/** The package version: injected into bundles, else read from the package's package.json. */
export function readVersion(): string {
  if (typeof __HERALD_VERSION__ === 'string') return __HERALD_VERSION__;
  try {
    const pkg = JSON.parse(readFileSync(join(appRoot(), 'package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
