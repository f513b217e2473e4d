/**
 * How tests run `herald` in a process of its own: the production bundle's bin
 * (out/server/cli.js, from server/bin.ts), with plain Node. The `server` project's global setup
 * (global-setup.ts) builds it when a source is newer, once per run, so every spawned Herald
 * runs this run's code. Plain Node starts it in a fraction of what `node --import tsx` took to
 * compile the sources in each child (docs/testing.md, "Processes").
 */
import { cliFile } from '../../scripts/build-server.mjs';

/** The bundle's entry: `node HERALD_BIN [command] [options]`. */
export const HERALD_BIN: string = cliFile;

/** Node's arguments for `herald <args>`. */
export function heraldArgs(args: readonly string[]): string[] {
  return [HERALD_BIN, ...args];
}
