/** `deliver`: deliveries end to end, against the webhook peer loaded directly. */
import { v2Body } from './herald-process';
import type { Rig } from './rig';
import { median, round1, round2 } from './shared';

/**
 * The clock runs from the first send to the last delivery's arrival at the peer, so
 * deliveries overlap the sends still coming in.
 */
export async function deliverRow(rig: Rig) {
  const { load, options, ledger } = rig;
  const { rounds, sends } = options;
  const body = v2Body(rig.tokens.v2Hooks);
  const delivered: number[] = [];
  const peerDirect: number[] = [];
  const deliveryCpu: number[] = [];
  for (let i = 0; i < rounds; i++) {
    peerDirect.push((await load(`${rig.peerUrl}/direct`, body, 64)).rps);
    const cpuBefore = rig.heraldCpuMs();
    delivered.push(await rig.deliverAll(`${rig.heraldUrl}/api/v2/message/send`, body));
    // deliverAll counted the peer from zero; a quiet second shows nothing more arrives.
    ledger.expectPeerTotal(2 * sends);
    await ledger.settle(0);
    deliveryCpu.push((rig.heraldCpuMs() - cpuBefore) / (2 * sends));
  }
  const herald = {
    deliveriesPerSecond: round1(median(delivered)),
    deliveries: 2 * sends,
    // Accepting the sends and delivering them, per delivery.
    cpuMsPerDelivery: round2(median(deliveryCpu)),
  };
  const ceiling = { rps: round1(median(peerDirect)) };
  rig.record({
    what: `Deliveries end to end: ${sends} V2 sends × 2 webhook instances to a loopback peer (all arrived)`,
    herald,
    ceiling,
    ratio: round2(herald.deliveriesPerSecond / ceiling.rps),
    rounds,
    bar: '≥ 0.25× the peer loaded directly',
  });
}
