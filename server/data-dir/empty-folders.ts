import { rmdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Removes `folder` and its parents up to `top` (inclusive) while each is empty: the folders a
 * failed start made (`mkdirSync(…, {recursive: true})` answers the first one it made). A folder
 * that holds anything stays, and so does everything above it; nothing is ever deleted but empty
 * folders.
 */
export function removeEmptyFolders(folder: string, top: string): void {
  const last = resolve(top);
  let current = resolve(folder);
  for (;;) {
    try {
      rmdirSync(current);
    } catch {
      return; // not empty, or gone already: nothing above it is ours to remove
    }
    if (current === last) return;
    const parent = dirname(current);
    // Never above `top`, whatever the paths look like.
    if (parent === current || !parent.startsWith(last)) return;
    current = parent;
  }
}
