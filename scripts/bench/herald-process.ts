/** Herald as the bench runs it: the production bundle in a process of its own, and its console. */
import { cliFile } from '../build-server.mjs';
import { spawnUntil, type Spawned } from './processes';
import { ConsoleClient } from './shared';

/** The webhook peer's paths that it counts per send id (peer.mjs HOOK_BITS). */
export const PEER_HOOKS = ['/hook-a', '/hook-b'] as const;

/** The administrator every bench Herald is started with. */
export const ADMIN = { username: 'bench', password: 'bench password 1234' };

/**
 * Herald as production runs it (out/server/cli.js, NODE_ENV=production), once it listens;
 * `script` runs another build of the same server (the budget row's paused Herald).
 */
export async function startHerald(
  root: string,
  dataDir: string,
  port: number,
  profileDir?: string,
  env: Record<string, string> = {},
  script = cliFile,
): Promise<Spawned> {
  const args = [
    ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []),
    script,
    '--port',
    String(port),
    '--data-dir',
    dataDir,
  ];
  return spawnUntil(process.execPath, args, /Herald is running at/, {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HERALD_LOG: 'warn',
      // Warnings are counted as `[WARN]` in the output.
      HERALD_LOG_FORMAT: 'text',
      HERALD_ADMIN_USER: ADMIN.username,
      HERALD_ADMIN_PASSWORD: ADMIN.password,
      ...env,
    },
  });
}

/** A signed-in console client for setting Herald up over its own API. */
export class BenchConsole extends ConsoleClient {
  async channel(type: string, config: Record<string, unknown> = {}): Promise<number> {
    const name = `bench-${type}-${Math.random().toString(36).slice(2, 8)}`;
    return (await this.call<{ id: number }>('POST', '/channels', { name, type, config })).id;
  }

  /**
   * A webhook channel to each hook the peer counts per send (peer.mjs), in PEER_HOOKS' order;
   * their ids.
   */
  async peerHooks(peerUrl: string): Promise<number[]> {
    const ids: number[] = [];
    for (const hook of PEER_HOOKS) ids.push(await this.channel('webhook', { url: peerUrl + hook }));
    return ids;
  }

  /** A V2 template (or, with `v1`, a V1 task) bound to the channels; returns its token. */
  async token(kind: 'templates' | 'tasks', channelIds: number[]): Promise<string> {
    const name = `bench-${Math.random().toString(36).slice(2, 8)}`;
    const fields =
      kind === 'templates'
        ? {
            name,
            text: 'host {{host}} at {{pct}}%',
            placeholders: [
              { key: 'host', label: 'Host' },
              { key: 'pct', label: 'Percent' },
            ],
          }
        : { name };
    const { id } = await this.call<{ id: number }>('POST', `/${kind}`, fields);
    for (const channelId of channelIds) {
      await this.call('POST', `/${kind}/${id}/instances`, { channelId, contentType: 'text' });
    }
    return (await this.call<{ token: string }>('GET', `/${kind}/${id}/token`)).token;
  }
}

/** The V2 body every V2 row sends: the template's two placeholders filled. */
export const v2Body = (token: string) =>
  JSON.stringify({ token, title: 'bench', placeholders: { host: 'web-3', pct: 98 } });
