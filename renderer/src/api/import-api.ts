import { ApiError, apiUrl } from './http-client';

export type ImportKind =
  'channels' | 'tasks' | 'templates' | 'instances' | 'schedules' | 'hostedMessages' | 'logs';

export interface ImportReport {
  source: string;
  dryRun: boolean;
  tablePrefix: string;
  counts: Record<ImportKind, { created: number; alreadyImported: number; skipped: number }>;
  skipped: Array<{ kind: ImportKind; id: string; name: string; reason: string }>;
  notes: string[];
}

/**
 * Uploads Message Nest's database file. The one console call whose body is not JSON: the
 * server takes this route's raw bytes (application/octet-stream) and answers the usual envelope.
 */
export async function importMessageNest(
  file: Blob,
  options: { dryRun: boolean; withLogs: boolean },
): Promise<ImportReport> {
  let res: Response;
  try {
    res = await fetch(
      apiUrl('/import/message-nest', {
        dryRun: options.dryRun ? 1 : undefined,
        withLogs: options.withLogs ? 1 : undefined,
      }),
      {
        method: 'POST',
        credentials: 'same-origin',
        headers: { Accept: 'application/json', 'Content-Type': 'application/octet-stream' },
        body: file,
      },
    );
  } catch (err) {
    throw new ApiError(0, `Network error: ${(err as Error).message || 'server unreachable'}`);
  }
  type Envelope = { code?: number; msg?: string; data?: ImportReport };
  const envelope = (await res.json().catch(() => null)) as Envelope | null;
  if (!envelope || envelope.code !== 200 || !envelope.data) {
    throw new ApiError(envelope?.code ?? res.status, envelope?.msg ?? `HTTP ${res.status}`);
  }
  return envelope.data;
}
