/** What both send APIs answer (the envelope's fields), and what an idempotency key replays. */
export interface SendResponse {
  code: number;
  msg: string;
  data: unknown;
}
