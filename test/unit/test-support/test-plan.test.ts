import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { existsSync, readdirSync as listDir } from 'node:fs';

import {
  INTEGRATION_FOLDERS,
  POSTGRES_ALSO,
  postgresPassFolders,
} from '../../../scripts/test-plan.mjs';

const integration = path.resolve(import.meta.dirname, '../../integration');

describe('the test plan (scripts/test-plan.mjs)', () => {
  it('classifies every folder of test/integration, and no folder that is gone', () => {
    const folders = listDir(integration, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();

    const unclassified = folders.filter((folder) => !(folder in INTEGRATION_FOLDERS));
    expect(
      unclassified,
      'a new folder of test/integration: say in scripts/test-plan.mjs whether its tests depend on the database dialect',
    ).toEqual([]);
    expect(Object.keys(INTEGRATION_FOLDERS).sort()).toEqual(folders);
  });

  it('says why for each, and runs only the dialect-dependent folders again on PostgreSQL', () => {
    for (const [folder, entry] of Object.entries(INTEGRATION_FOLDERS)) {
      expect([folder, ['both', 'postgres', 'sqlite'].includes(entry.db)]).toEqual([folder, true]);
      expect(entry.why.length, folder).toBeGreaterThan(10);
    }
    const both = Object.entries(INTEGRATION_FOLDERS)
      .filter(([, entry]) => entry.db === 'both')
      .map(([folder]) => `test/integration/${folder}/`);
    const files = Object.keys(POSTGRES_ALSO).map((file) => `test/integration/${file}`);
    expect(postgresPassFolders()).toEqual([...both, ...files]);
    // A single file runs again only from a folder that otherwise runs once, and must exist.
    for (const [file, why] of Object.entries(POSTGRES_ALSO)) {
      expect(existsSync(path.join(integration, file)), file).toBe(true);
      expect(INTEGRATION_FOLDERS[file.split('/')[0]]?.db, file).toBe('sqlite');
      expect(why.length, file).toBeGreaterThan(10);
    }
    // The issue's own list is among them.
    for (const folder of ['send', 'delivery', 'history', 'console', 'schedules', 'backup']) {
      expect(postgresPassFolders()).toContain(`test/integration/${folder}/`);
    }
  });
});
