import path from 'node:path';

import {
  openRotatingLogFile,
  type LogFile,
  type LogFileOptions,
} from '../server/lib/rotating-log-file';

/**
 * The desktop app's log file, `<userData>/logs/herald.log`. A packaged app started from a menu
 * has no terminal, so this file is the only place its setup code notice, warnings, worker
 * failures and shutdown timeouts can be read afterwards. It is capped and rotated by the same
 * code as headless Herald's HERALD_LOG_FILE (server/lib/rotating-log-file.ts): past 5 MiB it
 * becomes herald.1.log, up to herald.3.log.
 */

export { rotatedName, type LogFile, type LogFileOptions } from '../server/lib/rotating-log-file';

/** The log file's name inside the logs folder. */
export const LOG_FILE_NAME = 'herald.log';

/** openLogFile() opens (creating the folder) the capped log file in `logsDir`. */
export function openLogFile(logsDir: string, options: LogFileOptions = {}): LogFile {
  return openRotatingLogFile(path.join(logsDir, LOG_FILE_NAME), options);
}
