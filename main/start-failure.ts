/**
 * The dialog shown when the desktop app cannot start. It says what happened in words a user
 * can act on and where the log file is; the stack trace goes to the log file only.
 */

export interface StartFailureText {
  title: string;
  content: string;
}

/** startFailureDialog() words the failure `err`, pointing at `logFile` for the details. */
export function startFailureDialog(err: unknown, logFile: string): StartFailureText {
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : String(err);
  const details = `The details are in Herald's log file:\n${logFile}`;
  if (name === 'DataDirLockedError') {
    return { title: 'Herald is already running', content: `${message}\n\n${details}` };
  }
  return { title: 'Herald could not start', content: `${firstLine(message)}\n\n${details}` };
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]?.trim();
  return line || 'An unexpected error stopped the start.';
}
