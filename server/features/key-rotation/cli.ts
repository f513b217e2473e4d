import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { errorMessage } from '../../lib/errors';
import type { ResealCount } from './reseal';
import {
  rotateServerKey,
  RotationUnfinished,
  writeKeyFromEnv,
  type PermanentKeyReport,
  type RotationReport,
} from './rotate-key';
import { RotationRefused } from './rotation-refused';

const USAGE = `Usage: herald rotate-key [--data-dir DIR] [--tokens]
       herald rotate-key --from-env [--data-dir DIR]
       (npm run rotate-key -- … from a checkout)
Re-seals every stored secret (channel secrets, hook secrets, two-factor secrets, sealed
settings) under a new server key, in one transaction. Stop Herald first (every process, on
PostgreSQL); it refuses while one runs.
  --data-dir DIR  the data folder (HERALD_DATA_DIR, default ./data); the key file is replaced and
                  the old key kept beside it, named by date (secret.key.<UTC time>)
  --tokens        replace the token key too: every task's and template's token changes, the old
                  ones are refused, and the console shows the new ones. Without it every token
                  keeps working. Use it when the key itself leaked.
  --from-env      write the key HERALD_SECRET_KEY holds into the data folder's secret.key and
                  change nothing else: makes the key permanent (after restoring a backup made
                  --without-key), so the variable can be unset
The key is read as Herald reads it: HERALD_SECRET_KEY, HERALD_SECRET_KEY_FILE (the new key is
written to that file) or the folder's secret.key. With HERALD_SECRET_KEY, the new key is written
to the folder's secret.key and this says what to set. On PostgreSQL (HERALD_DATABASE_URL) the
secrets are re-sealed in the database; give every process the new key.`;

const plural = (n: number, what: string) => `${n} ${n === 1 ? what.replace(/s\b/, '') : what}`;

function describeCounts(counts: ResealCount[]): string[] {
  const done = counts.filter((c) => c.resealed > 0).map((c) => plural(c.resealed, c.what));
  const lines = [
    `Re-sealed: ${done.length > 0 ? done.join(', ') : 'nothing (no secret is stored)'}.`,
  ];
  const unopened = counts.filter((c) => c.unopened > 0);
  if (unopened.length > 0) {
    lines.push(
      `Left as they were: ${unopened.map((c) => plural(c.unopened, c.what)).join(', ')} that look ` +
        'sealed but did not open with the key before the rotation either (enter them again in the console).',
    );
  }
  return lines;
}

function describeRotation(r: RotationReport): string {
  const lines: string[] = [];
  if (r.finishedEarlier) {
    lines.push(
      `An earlier rotate-key re-sealed ${r.database} but was cut off before its key file was put ` +
        `in place; it is in place now.`,
    );
  } else {
    lines.push(`Rotated the server key of ${r.database}.`, ...describeCounts(r.counts));
    lines.push(
      r.tokens === 'kept'
        ? 'Tokens: kept. The token part of the key did not change, so every token scripts hold still works.'
        : "Tokens: replaced. Every task's and template's token changed and the old ones are refused: " +
            'give scripts the new ones (the console shows them on each task and template).',
    );
  }
  lines.push(`The key is in ${r.keyFile} (owner-only).`);
  if (r.keptOldKey) {
    lines.push(
      `The old key is kept in ${r.keptOldKey}: keep it while you may restore a backup made ` +
        '--without-key before now (a backup made with its key carries it), then delete it.',
    );
  }
  if (r.source === 'env') {
    lines.push(
      `The old key came from ${r.sourceName}, which this command cannot change, and Herald refuses ` +
        'to start with it now. Before starting Herald, either:',
      `  unset ${r.sourceName}: Herald then reads ${r.keyFile}; or`,
      `  set ${r.sourceName}="base64:$(cat ${r.keyFile})" wherever it is set, then delete ${r.keyFile}.`,
    );
  } else if (r.source === 'file') {
    lines.push(
      `${r.sourceName} names ${r.keyFile}: wherever a copy of it is handed to Herald (a secret ` +
        'store, systemd LoadCredential=), replace the copy with this file.',
    );
  }
  if (r.onPostgres) {
    lines.push(
      'Every Herald process on this database needs the new key before it starts: give each one ' +
        `this ${r.keyFile} (as its data folder's secret.key, or through HERALD_SECRET_KEY_FILE).`,
    );
  }
  return lines.join('\n');
}

function describePermanent(r: PermanentKeyReport): string {
  return [
    r.alreadyThere
      ? `${r.keyFile} already holds the key of ${r.sourceName}.`
      : `Wrote the key of ${r.sourceName} to ${r.keyFile} (owner-only). The key did not change: nothing was re-sealed, every token still works.`,
    `Unset ${r.sourceName} where Herald is started, and restart it: it then reads ${r.keyFile}.`,
  ].join('\n');
}

/** Sequelize says "Validation error" for a refused statement; the database's words are below. */
function failure(err: unknown): string {
  const message = errorMessage(err);
  const original = (err as { original?: { message?: unknown } }).original?.message;
  return typeof original === 'string' && original !== message
    ? `${message} (${original})`
    : message;
}

export async function runRotateKeyCli(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string' },
        tokens: { type: 'boolean' },
        'from-env': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
    if (values.tokens && values['from-env']) {
      throw new Error('--from-env keeps the key as it is; it does not go with --tokens');
    }
  } catch (err) {
    console.error(`${errorMessage(err)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const dataDir = resolve(values['data-dir'] ?? env.HERALD_DATA_DIR ?? 'data');
  try {
    if (values['from-env']) {
      console.log(describePermanent(await writeKeyFromEnv({ dataDir, env })));
    } else {
      const report = await rotateServerKey({ dataDir, env, replaceTokens: values.tokens === true });
      console.log(describeRotation(report));
    }
    return 0;
  } catch (err) {
    if (err instanceof RotationRefused || err instanceof RotationUnfinished) {
      console.error(err.message);
    } else {
      // Every write is in the transaction, rolled back; the new key file is removed with it.
      console.error(
        `rotate-key failed: ${failure(err)}\nNothing was changed: the database is as it ` +
          'was, and so is the key file.',
      );
    }
    return 1;
  }
}
