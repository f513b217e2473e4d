/**
 * The cells of the shared buffer. Tickets are Int32 and wrap around after 2^32 turns; only
 * equality is ever asked of them, which holds across the wrap.
 */
const NEXT = 0;
const SERVING = 1;
/** Per party: 1 while it holds a ticket (waiting or writing), and that ticket. */
const HAS = 2;
const TICKET = 2 + 2;
/** A ticket whose party ended with it: skipped when its turn comes. */
const DEAD_HAS = 6;
const DEAD_TICKET = 7;
const CELLS = 8;

/** ES2024's Atomics.waitAsync, in V8 (and so Node) since 16; TypeScript's ES2023 lib lacks it. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      cells: Int32Array,
      index: number,
      value: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync.bind(Atomics);

/** The main thread, and the delivery thread: the two parties a process has at most. */
export type WriteParty = 0 | 1;

/**
 * Whose turn it is to write the SQLite file, between the two threads of one process that each
 * have a write connection to it (the main thread, and the delivery thread while it runs).
 *
 * SQLite lets one connection write at a time and makes the others wait in its busy handler,
 * which sleeps the waiting thread for 1, 2, 5, 10… ms and lets whoever is ready first win, so
 * two busy writers would starve each other and block their event loops. A ticket lock over a
 * SharedArrayBuffer hands the turn over in arrival order instead, and a thread waiting for it
 * waits with Atomics.waitAsync: its event loop goes on meanwhile (replies, parsing, requests).
 * The Writer takes the turn for each of its cycles; SQLite's busy timeout stays as the net for
 * writes outside the Writer (migrations at start, before any second thread exists).
 */
export class WriteTurn {
  private readonly cells: Int32Array;

  /** `party`'s side, over the buffer the other party's WriteTurn was made with (or a new one). */
  constructor(
    private readonly party: WriteParty = 0,
    readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(
      CELLS * Int32Array.BYTES_PER_ELEMENT,
    ),
  ) {
    this.cells = new Int32Array(buffer);
  }

  /** Resolves once this party holds the turn; every take() is followed by one give(). */
  async take(): Promise<void> {
    const ticket = Atomics.add(this.cells, NEXT, 1);
    Atomics.store(this.cells, TICKET + this.party, ticket);
    Atomics.store(this.cells, HAS + this.party, 1);
    for (;;) {
      const serving = Atomics.load(this.cells, SERVING);
      if (serving === ticket) return;
      if (this.skipDead(serving)) continue;
      const wait = waitAsync(this.cells, SERVING, serving);
      if (wait.async) await wait.value;
    }
  }

  give(): void {
    Atomics.store(this.cells, HAS + this.party, 0);
    this.advance(Atomics.load(this.cells, SERVING));
  }

  /**
   * The other party ended (its thread crashed or was stopped) while it held a ticket: SQLite
   * rolled back what its connection had begun, and its turn, whether it was writing or still
   * waiting, is passed over so that this party is not left waiting for it.
   */
  abandon(party: WriteParty): void {
    if (Atomics.load(this.cells, HAS + party) !== 1) return;
    Atomics.store(this.cells, HAS + party, 0);
    Atomics.store(this.cells, DEAD_TICKET, Atomics.load(this.cells, TICKET + party));
    Atomics.store(this.cells, DEAD_HAS, 1);
    this.skipDead(Atomics.load(this.cells, SERVING));
  }

  /** If `serving` is the dead ticket, moves the turn past it; true when it did. */
  private skipDead(serving: number): boolean {
    if (Atomics.load(this.cells, DEAD_HAS) !== 1) return false;
    if (Atomics.load(this.cells, DEAD_TICKET) !== serving) return false;
    Atomics.store(this.cells, DEAD_HAS, 0);
    this.advance(serving);
    return true;
  }

  private advance(from: number): void {
    Atomics.compareExchange(this.cells, SERVING, from, from + 1);
    Atomics.notify(this.cells, SERVING);
  }
}
