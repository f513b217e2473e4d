/**
 * A Message Nest cron spec in Herald's terms, or why it has none. `neverRan`: Message Nest saved
 * a 6-field spec but its scheduler (5 fields) never ran it; Herald would read the first field as
 * seconds.
 */
export type TranslatedCron =
  { cron: string; timezone?: string; notes: string[]; neverRan: boolean } | { reason: string };

/** Message Nest's spec (robfig/cron's standard parser) in Herald's terms. */
export function translateMessageNestCron(spec: string): TranslatedCron {
  let rest = spec.trim();
  let timezone: string | undefined;
  const prefix = /^(?:CRON_TZ|TZ)=(\S+)\s+/.exec(rest);
  if (prefix) {
    timezone = prefix[1];
    rest = rest.slice(prefix[0].length).trim();
  }
  const every = /^@every\s+(\S+)$/i.exec(rest);
  if (every) {
    const cron = everyAsCron(every[1]);
    if (!cron) {
      return {
        reason: `"${spec.trim()}" runs every ${every[1]} counted from Message Nest's start, which no cron expression can say`,
      };
    }
    return {
      cron,
      timezone,
      neverRan: false,
      notes: [`"@every ${every[1]}" became "${cron}" (aligned to the clock)`],
    };
  }
  const fields = rest.startsWith('@') ? 5 : rest.split(/\s+/).length;
  // Message Nest's API lets 6 and 7 fields through, but its scheduler refuses them.
  if (fields === 7) return { reason: `"${spec.trim()}" has 7 fields; Message Nest never ran it` };
  return { cron: rest, timezone, notes: [], neverRan: fields === 6 };
}

/** A Go duration that divides the clock evenly, as a cron expression; null otherwise. */
function everyAsCron(duration: string): string | null {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
  if (!match || duration === '') return null;
  const seconds = Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  if (seconds <= 0) return null;
  if (seconds < 60) return 60 % seconds === 0 ? `*/${seconds} * * * * *` : null;
  if (seconds % 60 !== 0) return null;
  const minutes = seconds / 60;
  if (minutes < 60) return 60 % minutes === 0 ? `*/${minutes} * * * *` : null;
  if (minutes % 60 !== 0) return null;
  const hours = minutes / 60;
  if (hours === 24) return '0 0 * * *';
  return hours < 24 && 24 % hours === 0 ? `0 */${hours} * * *` : null;
}
