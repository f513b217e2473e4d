/**
 * `npm run docker:check`: builds the Dockerfile's image and runs it the way
 * docs/running-for-a-team.md tells users to, checking each promise the docs make: healthy by its
 * HEALTHCHECK, the unprivileged user and owner-only /data, the first administrator by the setup
 * code from the logs, a V2 send stored and read back, the documented backup command, a clean stop
 * on SIGTERM within the grace period, and the data kept in the volume across a new container.
 *
 * It needs a Docker daemon and the base image (or a registry to pull it from); it is not part of
 * `npm test`, which checks the image's layout without Docker (test/integration/packaging).
 *
 *   npm run docker:check -- [--network host] [--node-image IMAGE] [--keep-image]
 *   npm run docker:check -- --image TAG     (checks an image built before, without building)
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

import { ConsoleClient, freePort } from './bench/shared';

const { values } = parseArgs({
  options: {
    network: { type: 'string' },
    'node-image': { type: 'string' },
    'keep-image': { type: 'boolean' },
    image: { type: 'string' },
  },
});

const run = (args: string[]) => {
  const r = spawnSync('docker', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status ?? 1, out: r.stdout.trim(), err: r.stderr.trim() };
};
const docker = (...args: string[]) => {
  const r = run(args);
  if (r.code !== 0) throw new Error(`docker ${args.join(' ')} failed (${r.code}): ${r.err}`);
  return r.out;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const passed: string[] = [];
function check(ok: boolean, what: string, detail = ''): void {
  if (!ok) throw new Error(`✗ ${what}${detail ? `: ${detail}` : ''}`);
  passed.push(what);
  console.log(`✓ ${what}${detail ? ` (${detail})` : ''}`);
}

async function waitFor<T>(
  what: string,
  limitMs: number,
  probe: () => Promise<T | null>,
): Promise<T> {
  const until = Date.now() + limitMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > until) throw new Error(`✗ ${what}: not within ${limitMs / 1000} s`);
    await sleep(1000);
  }
}

/**
 * The health probe's fetch. Until Herald listens in the container, docker-proxy accepts the
 * connection and never answers, and such a fetch holds nothing that keeps Node running: the
 * timer (a referenced one, unlike AbortSignal.timeout's) both bounds it and keeps the process up.
 */
async function probe(url: string): Promise<boolean> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 2000);
  try {
    return (await fetch(url, { signal: abort.signal })).ok;
  } finally {
    clearTimeout(timer);
  }
}

const tag = values.image ?? `herald:check-${randomBytes(3).toString('hex')}`;
const volume = `herald-check-${randomBytes(3).toString('hex')}`;
const containers: string[] = [];
const servers: { close(): void }[] = [];

async function startContainer(port: number, extra: string[] = []): Promise<string> {
  const name = `${volume}-${containers.length + 1}`;
  docker(
    'run',
    '-d',
    ...extra,
    '--name',
    name,
    '-p',
    `127.0.0.1:${port}:8765`,
    '-v',
    `${volume}:/data`,
    // The webhook peer below runs on this machine, outside the container.
    '--add-host',
    'host.docker.internal:host-gateway',
    tag,
  );
  containers.push(name);
  const base = `http://127.0.0.1:${port}`;
  await waitFor('listening', 60_000, async () => ((await probe(`${base}/healthz`)) ? true : null));
  return name;
}

async function main(): Promise<void> {
  if (run(['info']).code !== 0) throw new Error('no Docker daemon answers `docker info`');
  if (!values.image) {
    const build = ['build', '-t', tag];
    if (values.network) build.push('--network', values.network);
    if (values['node-image']) build.push('--build-arg', `NODE_IMAGE=${values['node-image']}`);
    const started = Date.now();
    const built = spawnSync('docker', [...build, '.'], { stdio: 'inherit' });
    check(built.status === 0, 'the image builds', `${Math.round((Date.now() - started) / 1000)} s`);
  }
  const size = Number(docker('image', 'inspect', '--format', '{{.Size}}', tag));
  console.log(`  image size: ${Math.round(size / 1e6)} MB`);

  // A webhook receiver on this machine: an HTTP channel's delivery leaves the container.
  const received: string[] = [];
  const peer = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(`${req.method} ${req.url} ${body}`);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => peer.listen(0, '0.0.0.0', resolve));
  const peerPort = (peer.address() as { port: number }).port;
  servers.push(peer);

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const first = await startContainer(port);

  check(docker('exec', first, 'id', '-un') === 'node', 'it runs as the unprivileged node user');
  const dataDir = docker('exec', first, 'stat', '-c', '%a %U', '/data');
  check(dataDir === '700 node', '/data is owner-only and the node user’s', dataDir);

  const health = await waitFor('the HEALTHCHECK reports healthy', 120_000, async () => {
    const status = docker('inspect', '--format', '{{.State.Health.Status}}', first);
    return status === 'healthy' ? status : null;
  });
  check(health === 'healthy', 'the HEALTHCHECK reports healthy');

  // As the docs find it: `grep -o 'setup code: [^ ]*'`, in the JSON record the image logs.
  const firstLogs = run(['logs', first]);
  const code = /setup code: ([^ \n]+)/.exec(firstLogs.out)?.[1];
  check(code !== undefined, 'the logs show the one-time setup code');
  const notJson = `${firstLogs.out}\n${firstLogs.err}`.split('\n').filter((line) => {
    if (line.trim() === '') return false;
    try {
      JSON.parse(line);
      return false;
    } catch {
      return true;
    }
  });
  check(notJson.length === 0, 'every line it logs is a JSON record', notJson[0] ?? '');
  const admin = new ConsoleClient(base);
  const password = 'docker check password 1';
  await admin.call('POST', '/setup', { username: 'admin', password, setupCode: code });
  const channel = await admin.call<{ id: number }>('POST', '/channels', {
    name: 'inbox',
    type: 'hosted',
    config: {},
  });
  const template = await admin.call<{ id: number }>('POST', '/templates', {
    name: 'docker-check',
    markdown: 'from {{host}}',
    placeholders: [{ key: 'host', label: 'Host' }],
  });
  await admin.call('POST', `/templates/${template.id}/instances`, {
    channelId: channel.id,
    contentType: 'markdown',
  });
  const hook = await admin.call<{ id: number }>('POST', '/channels', {
    name: 'hook',
    type: 'webhook',
    config: { url: `http://host.docker.internal:${peerPort}/hook` },
  });
  await admin.call('POST', `/templates/${template.id}/instances`, {
    channelId: hook.id,
    contentType: 'text',
  });
  const { token } = await admin.call<{ token: string }>('GET', `/templates/${template.id}/token`);
  const sent = (await (
    await fetch(`${base}/api/v2/message/send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, title: 'Docker check', placeholders: { host: 'a container' } }),
    })
  ).json()) as { code: number };
  check(sent.code === 200, 'a V2 send is accepted', JSON.stringify(sent).slice(0, 80));
  const stored = (client: ConsoleClient) =>
    client.call<{ items: { title: string; content: string }[] }>('GET', '/messages?q=docker');
  const messages = await waitFor('the hosted message stored', 30_000, async () => {
    const page = await stored(admin);
    return page.items.length > 0 ? page.items : null;
  });
  check(messages[0]!.content === 'from a container', 'the hosted message is read back');

  const delivered = await waitFor('the webhook delivery', 30_000, async () =>
    received.length > 0 ? received[0]! : null,
  );
  check(
    delivered.startsWith('POST /hook ') && delivered.includes('Docker check'),
    'a webhook delivery reaches a receiver outside the container',
    delivered.slice(0, 60),
  );

  const backup = run([
    'exec',
    first,
    'node',
    'out/server/cli.js',
    'backup',
    '--out',
    '/data/backups/now.herald-backup',
  ]);
  check(
    backup.code === 0,
    'the documented backup command writes a backup',
    backup.err || backup.out,
  );
  check(
    docker('exec', first, 'stat', '-c', '%a', '/data/backups/now.herald-backup') === '600',
    'the backup is owner-only',
  );

  const stopping = Date.now();
  docker('stop', '--time', '20', first);
  const stopSeconds = (Date.now() - stopping) / 1000;
  const exit = docker('inspect', '--format', '{{.State.ExitCode}}', first);
  check(
    exit === '0' && stopSeconds < 20,
    'SIGTERM stops it cleanly',
    `exit ${exit}, ${stopSeconds} s`,
  );

  // The second runs with a read-only root, as the docs say it can: Herald writes only to /data,
  // SQLite's temporary files go to the tmpfs.
  const second = await startContainer(port, ['--read-only', '--tmpfs', '/tmp']);
  const again = new ConsoleClient(base);
  await again.call('POST', '/login', { username: 'admin', password });
  check(
    (await stored(again)).items.some((m) => m.title === 'Docker check'),
    'a new container on the volume keeps the administrator and the messages',
  );
  check(!/setup code/.test(docker('logs', second)), 'no setup code once an administrator exists');

  const download = await again.fetch('GET', '/backup');
  const bytes = Buffer.from(await download.arrayBuffer());
  check(
    download.status === 200 && bytes.subarray(0, 15).toString('latin1') === 'SQLite format 3',
    'with a read-only root and a tmpfs /tmp, the console’s backup download works',
    `${download.status}, ${bytes.length} bytes`,
  );
}

main()
  .then(
    () => {
      console.log(`\nAll ${passed.length} checks passed.`);
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  )
  .finally(() => {
    for (const server of servers) server.close();
    for (const name of containers) run(['rm', '-f', name]);
    run(['volume', 'rm', '-f', volume]);
    if (!values['keep-image'] && !values.image) run(['image', 'rm', '-f', tag]);
  });
