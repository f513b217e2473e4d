/**
 * Throughput benchmark on loopback: V2 sends accepted per second and deliveries completed per
 * second through a real Herald (SQLite file, webhook peer on 127.0.0.1), against a bare Express
 * JSON endpoint on the same machine as the baseline. Prints medians of several rounds and the
 * ratios, never absolute pass/fail: machines here are shared and noisy.
 *
 *   npm run bench [-- --rounds 3 --seconds 5 --connections 20]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import autocannon from 'autocannon';
import express from 'express';

import { Delivery } from '../server/db/models';
import { startHttpPeer } from '../test/helpers/http-peer';
import { startTestHerald } from '../test/helpers/herald';

const history = process.argv.includes('--history') ? await import('./bench-history') : null;
if (history) await history.finished.then(() => process.exit(0));
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '20' },
  },
});
const rounds = Number(values.rounds);
const duration = Number(values.seconds);
const connections = Number(values.connections);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function load(url: string, body: string): Promise<number> {
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    duration,
    headers: { 'Content-Type': 'application/json' },
    body,
  });
  if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers from ${url}`);
  return result.requests.average;
}

async function main() {
  const baselineApp = express();
  baselineApp.post('/echo', express.json(), (req, res) => {
    res.json({ code: 200, msg: 'success', data: { count: Object.keys(req.body).length } });
  });
  const baseline = await new Promise<import('node:http').Server>((r) => {
    const s = baselineApp.listen(0, '127.0.0.1', () => r(s));
  });
  const baselineUrl = `http://127.0.0.1:${(baseline.address() as { port: number }).port}/echo`;

  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-'));
  const herald = await startTestHerald({ dataDir });
  const peer = await startHttpPeer({ status: 200, body: '{"ok":true}' });
  const hook = await herald.createChannel('webhook', { url: `${peer.url}/bench` });
  const inbox = await herald.createChannel('hosted');
  const { token } = await herald.createTemplate(
    { text: 'host {{host}} at {{pct}}%', placeholders: [{ key: 'host', label: 'Host' }, { key: 'pct', label: 'Pct' }] },
    [
      { channelId: hook.id, contentType: 'text' },
      { channelId: inbox.id, contentType: 'text' },
    ],
  );
  const body = JSON.stringify({ token, title: 'bench', placeholders: { host: 'web-3', pct: 98 } });

  const base: number[] = [];
  const accepted: number[] = [];
  const delivered: number[] = [];
  for (let i = 0; i < rounds; i++) {
    base.push(await load(baselineUrl, body));
    const before = await Delivery.count({ where: { status: 'sent' } });
    const started = Date.now();
    accepted.push(await load(`${herald.url}/api/v2/message/send`, body));
    const queued = await Delivery.count();
    await herald.waitFor(async () => (await Delivery.count({ where: { status: 'sent' } })) >= queued, 600_000);
    delivered.push(((await Delivery.count({ where: { status: 'sent' } })) - before) / ((Date.now() - started) / 1000));
  }
  const b = median(base);
  const a = median(accepted);
  const d = median(delivered);
  console.log(`rounds ${rounds} × ${duration}s, ${connections} connections, 2 instances per send`);
  console.log(`bare Express JSON endpoint : median ${b.toFixed(0)} req/s`);
  console.log(`Herald V2 sends accepted   : median ${a.toFixed(0)} req/s (ratio to bare Express ${(a / b).toFixed(2)})`);
  console.log(`deliveries completed       : median ${d.toFixed(0)} /s (ratio to sends accepted ${(d / a).toFixed(2)})`);
  await herald.close();
  await peer.close();
  baseline.close();
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
