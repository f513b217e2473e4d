import { spawn } from 'node:child_process';

/** What a process printed, and how it ended. */
export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node ARGS` (a bin, a script) as a process of its own to its end and collects what it
 * printed: how the command-line tests run `herald <command>` the way a person's shell does.
 */
export function runNodeToExit(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<ProcessResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
