/** Open live streams per session: enough for a handful of console tabs, not for a flood. */
export const MAX_STREAMS_PER_SESSION = 8;

interface OpenStream {
  sessionKey: string;
  userId: number;
  end(): void;
}

/**
 * The console's open event streams, by session, so signing out or changing the password can
 * end the streams that session (or that user) opened, and one session cannot open unlimited
 * streams.
 */
export class LiveStreams {
  private readonly open = new Set<OpenStream>();

  constructor(readonly maxPerSession = MAX_STREAMS_PER_SESSION) {}

  /**
   * Registers a stream; `end` closes the response. Returns the function that unregisters it
   * (call it when the stream closes), or null when the session already has its maximum.
   */
  add(sessionKey: string, userId: number, end: () => void): (() => void) | null {
    if (this.countFor(sessionKey) >= this.maxPerSession) return null;
    const stream: OpenStream = { sessionKey, userId, end };
    this.open.add(stream);
    return () => this.open.delete(stream);
  }

  countFor(sessionKey: string): number {
    let n = 0;
    for (const s of this.open) if (s.sessionKey === sessionKey) n++;
    return n;
  }

  /** The session signed out. */
  endSession(sessionKey: string): void {
    this.endWhere((s) => s.sessionKey === sessionKey);
  }

  /** One of the user's sessions was signed out: its streams end, and never another user's. */
  endSessionOf(userId: number, sessionKey: string): void {
    this.endWhere((s) => s.userId === userId && s.sessionKey === sessionKey);
  }

  /** The user's password changed: every stream opened under the old one ends. */
  endUser(userId: number): void {
    this.endWhere((s) => s.userId === userId);
  }

  /** The user's other sessions were signed out: their streams end, this session's stay. */
  endUserExcept(userId: number, keepSessionKey: string): void {
    this.endWhere((s) => s.userId === userId && s.sessionKey !== keepSessionKey);
  }

  private endWhere(match: (s: OpenStream) => boolean): void {
    for (const s of [...this.open]) {
      if (!match(s)) continue;
      this.open.delete(s);
      s.end();
    }
  }
}
