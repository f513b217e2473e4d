/** The rows of sends accepted: Herald beside bare Express answering the same requests. */
import { v2Body } from './herald-process';
import type { Load } from './load';
import type { Row } from './report';
import type { Rig } from './rig';
import { median, round1, round2 } from './shared';

interface AcceptRow {
  what: string;
  apiPath: string;
  body: string;
  connections: number;
  /** What one accepted send delivers, counted before the next figure. */
  perSend: { hosted: number; peer: number };
  bar: string;
  /** Also load bare Express with Herald's request classes. */
  sameClasses?: boolean;
}

/** Rounds of the ceiling and then Herald, each round's deliveries settled before the next. */
async function acceptRow(rig: Rig, spec: AcceptRow) {
  const { load, options, ledger } = rig;
  const { apiPath, body, connections } = spec;
  const h: Load[] = [];
  const c: Load[] = [];
  const born: Load[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < options.rounds; i++) {
    c.push(await load(`${rig.bareUrl}${apiPath}`, body, connections));
    if (spec.sameClasses) born.push(await load(`${rig.bareBornUrl}${apiPath}`, body, connections));
    const cpuBefore = rig.heraldCpuMs();
    const r = await load(`${rig.heraldUrl}${apiPath}`, body, connections);
    h.push(r);
    ledger.expect(r.ok, spec.perSend);
    await ledger.settle(connections);
    // Accepting and delivering what was accepted, per send.
    cpu.push((rig.heraldCpuMs() - cpuBefore) / r.ok);
  }
  const herald = {
    rps: round1(median(h.map((x) => x.rps))),
    p99Ms: median(h.map((x) => x.p99)),
    cpuMsPerSend: round2(median(cpu)),
  };
  const ceiling = {
    rps: round1(median(c.map((x) => x.rps))),
    p99Ms: median(c.map((x) => x.p99)),
  };
  const bornRps = round1(median(born.map((x) => x.rps)));
  const row: Row = {
    what: spec.what,
    herald,
    ceiling,
    ratio: round2(herald.rps / ceiling.rps),
    ...(spec.sameClasses && {
      sameClasses: { rps: bornRps, ratio: round2(herald.rps / bornRps) },
    }),
    rounds: options.rounds,
    bar: spec.bar,
  };
  rig.record(row);
}

/** `v2`: V2 sends to one hosted instance, also against bare Express with Herald's classes. */
export const v2Row = (rig: Rig) =>
  acceptRow(rig, {
    what: 'V2 sends accepted, 64 connections, 1 hosted instance',
    apiPath: '/api/v2/message/send',
    body: v2Body(rig.tokens.v2One),
    connections: 64,
    perSend: { hosted: 1, peer: 0 },
    bar: '≥ 0.6× bare Express, p99 < 50 ms',
    sameClasses: true,
  });

/** `v1`: V1 `mode: async` sends to one hosted instance. */
export const v1Row = (rig: Rig) =>
  acceptRow(rig, {
    what: 'V1 mode: async accepted, 64 connections, 1 hosted instance',
    apiPath: '/api/v1/message/send',
    body: rig.v1Body,
    connections: 64,
    perSend: { hosted: 1, peer: 0 },
    bar: '≥ 0.6× bare Express, p99 < 50 ms',
  });

/** `two`: V2 sends fanning out to a webhook and a hosted instance. */
export const twoRow = (rig: Rig) =>
  acceptRow(rig, {
    what: 'V2 sends accepted, 20 connections, 2 instances (webhook + hosted)',
    apiPath: '/api/v2/message/send',
    body: v2Body(rig.tokens.v2Two),
    connections: 20,
    perSend: { hosted: 1, peer: 1 },
    bar: '—',
  });
