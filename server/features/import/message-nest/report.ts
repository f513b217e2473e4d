import { IMPORT_KINDS, type ImportKind } from '../../../../contract/console/import';
import type { ScheduleZoneSource } from './time-zone';

export { IMPORT_KINDS, type ImportKind };

const LABELS: Record<ImportKind, string> = {
  channels: 'Channels',
  tasks: 'Tasks',
  templates: 'Templates',
  instances: 'Instances',
  schedules: 'Scheduled messages',
  hostedMessages: 'Hosted messages',
  logs: 'Send logs',
};

export interface KindCounts {
  created: number;
  alreadyImported: number;
  skipped: number;
}

export interface SkippedItem {
  kind: ImportKind;
  /** Message Nest's table the row is in, as found (its prefix included). */
  table: string;
  /** Message Nest's id of the row. */
  id: string;
  name: string;
  reason: string;
}

/** The zone an imported schedule runs in, and where it came from. */
export interface ScheduleZone {
  /** Message Nest's id of the cron message. */
  id: string;
  name: string;
  timeZone: string;
  source: ScheduleZoneSource;
}

/** Why a schedule has its zone, as the command line prints it. */
const ZONE_SOURCES: Record<ScheduleZoneSource, string> = {
  cron: 'named in its Message Nest expression (CRON_TZ=)',
  option: 'given with --time-zone',
  default:
    "Message Nest's default zone (it stores none of its own): give --time-zone if it ran in another",
};

/** What an import did (or, dry, would do): the console and the command line both show it. */
export interface ImportReport {
  source: string;
  dryRun: boolean;
  /** Message Nest's table prefix as found. */
  tablePrefix: string;
  counts: Record<ImportKind, KindCounts>;
  skipped: SkippedItem[];
  /** Each schedule created, with its zone and why it has that one. */
  scheduleZones: ScheduleZone[];
  /** Things carried over with a difference, and settings the import changed. */
  notes: string[];
}

export function emptyCounts(): Record<ImportKind, KindCounts> {
  return Object.fromEntries(
    IMPORT_KINDS.map((k) => [k, { created: 0, alreadyImported: 0, skipped: 0 }]),
  ) as Record<ImportKind, KindCounts>;
}

/** The table the command line prints at the end. */
export function formatReport(report: ImportReport): string {
  const created = report.dryRun ? 'Would create' : 'Created';
  const header = ['', created, 'Already imported', 'Skipped'];
  const rows = IMPORT_KINDS.map((k) => [
    LABELS[k],
    String(report.counts[k].created),
    String(report.counts[k].alreadyImported),
    String(report.counts[k].skipped),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const out = [
    `${report.dryRun ? 'Dry run (nothing was changed): ' : ''}Message Nest import from ${report.source}`,
    '',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ];
  if (report.skipped.length > 0) {
    out.push('', 'Skipped:');
    for (const s of report.skipped) {
      out.push(`  - ${s.table} ${s.id}${s.name ? ` "${s.name}"` : ''}: ${s.reason}`);
    }
  }
  if (report.scheduleZones.length > 0) {
    out.push('', 'Schedule time zones:');
    for (const z of report.scheduleZones) {
      out.push(
        `  - ${z.id}${z.name ? ` "${z.name}"` : ''}: ${z.timeZone}, ${ZONE_SOURCES[z.source]}`,
      );
    }
  }
  if (report.notes.length > 0) {
    out.push('', 'Notes:');
    for (const n of report.notes) out.push(`  - ${n}`);
  }
  return out.join('\n');
}
