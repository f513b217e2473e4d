import { QueryTypes, type QueryInterface } from 'sequelize';

const SETTINGS_KEY = 'settings';

/** Tables whose rows show that someone used this data folder before the default changed. */
const USED_TABLES = ['users', 'channels', 'tasks', 'templates', 'sends'];

/**
 * `allowTaskId` used to default to on and was stored only once an administrator saved the
 * settings. It now defaults to off, so a data folder that was already in use gets its old
 * behaviour written down: scripts sending with task_id keep working after the upgrade. A fresh
 * database (every table still empty here) stores nothing and gets the new default.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const sequelize = qi.sequelize;
  const rows = await sequelize.query<{ value: unknown }>(
    'SELECT value FROM settings WHERE key = ?',
    { replacements: [SETTINGS_KEY], type: QueryTypes.SELECT },
  );
  if (rows.length > 0) {
    const stored = parseStored(rows[0].value);
    // An administrator's explicit choice stands; only a value that was never stored is filled in.
    if (stored === null || 'allowTaskId' in stored) return;
    await sequelize.query('UPDATE settings SET value = ? WHERE key = ?', {
      replacements: [JSON.stringify({ ...stored, allowTaskId: true }), SETTINGS_KEY],
    });
    return;
  }
  for (const table of USED_TABLES) {
    const used = await sequelize.query(`SELECT 1 FROM ${table} LIMIT 1`, {
      type: QueryTypes.SELECT,
    });
    if (used.length > 0) {
      await sequelize.query('INSERT INTO settings (key, value) VALUES (?, ?)', {
        replacements: [SETTINGS_KEY, JSON.stringify({ allowTaskId: true })],
      });
      return;
    }
  }
}

/** The settings are a JSON object; anything else is left alone (the store falls back to defaults). */
function parseStored(value: unknown): Record<string, unknown> | null {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : null;
}

/** Nothing to undo: the stored value is what the older version assumed all along. */
export async function down(): Promise<void> {}
