/**
 * Every accepted send must be delivered: hosted messages and peer requests are counted against
 * the 2xx answers before the next figure is taken, so a backlog never leaks into it.
 */
import { waitUntil } from './load';

/** What has arrived so far: hosted messages in Herald, requests at the webhook peer. */
export interface DeliveryCounts {
  hosted: number;
  peer: number;
}

export class DeliveryLedger {
  private expected: DeliveryCounts = { hosted: 0, peer: 0 };

  constructor(private readonly counts: () => Promise<DeliveryCounts>) {}

  /** `sends` more sends accepted, each delivering `perSend`. */
  expect(sends: number, perSend: DeliveryCounts) {
    this.expected.hosted += sends * perSend.hosted;
    this.expected.peer += sends * perSend.peer;
  }

  /** The peer's counter was reset and `total` requests are due there since. */
  expectPeerTotal(total: number) {
    this.expected.peer = total;
  }

  /**
   * Waits until everything expected arrived and then a quiet second. A timed load stops with
   * up to one request per connection in flight and uncounted, which Herald may still have
   * accepted: that much `slack` is allowed, then the count moves on.
   */
  async settle(slack: number) {
    await waitUntil('every accepted send to be delivered', async () => {
      const { hosted, peer } = await this.counts();
      return hosted >= this.expected.hosted && peer >= this.expected.peer;
    });
    // Stragglers (accepted while uncounted) queue behind the rest: wait for a quiet second.
    let last = await this.counts();
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = await this.counts();
      if (now.hosted === last.hosted && now.peer === last.peer) break;
      last = now;
    }
    const { hosted, peer } = last;
    if (hosted > this.expected.hosted + slack || peer > this.expected.peer + slack) {
      throw new Error(
        `more deliveries than sends: ${hosted} hosted for ${this.expected.hosted}, ${peer} webhook for ${this.expected.peer}`,
      );
    }
    this.expected = { hosted, peer };
  }
}
