/**
 * `herald send`'s config file: `$XDG_CONFIG_HOME/herald/cli.json`, or
 * `~/.config/herald/cli.json` without XDG_CONFIG_HOME. Optional; keys `url` and `token` (other
 * keys are ignored, for later versions). Flags and HERALD_URL/HERALD_TOKEN win over it.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

import type { FileConfig } from './send-args';

export function cliConfigPath(env: NodeJS.ProcessEnv): string {
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(homedir(), '.config');
  return path.join(base, 'herald', 'cli.json');
}

export class ConfigFileError extends Error {}

/** The file's values; {} when there is no file. Throws ConfigFileError when it is unreadable. */
export function readCliConfig(file: string): FileConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigFileError(`${file}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigFileError(`${file}: not JSON (${(err as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigFileError(`${file}: must be a JSON object like {"url": "…", "token": "…"}`);
  }
  const config: FileConfig = {};
  for (const key of ['url', 'token'] as const) {
    const value = (parsed as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new ConfigFileError(`${file}: "${key}" must be a string`);
    config[key] = value;
  }
  return config;
}
