/**
 * The docs' code blocks and their example markers (docs/testing.md, "The docs' examples").
 *
 * A fenced block a reader would paste into a shell is preceded by one of
 *
 *     <!-- doc-example: NAME -->        the tests run it as written
 *     <!-- doc-example-skip: NAME -->   it cannot run here; the test lists NAME with the reason
 *
 * (blank lines may come between the marker and the fence, nothing else). This module only reads
 * the Markdown; doc-examples.test.ts decides what must be marked and runs the examples.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');

/** README.md and every docs/*.md, as paths relative to the repository. */
export function docFiles(root = REPO_ROOT): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join('docs', f));
  return ['README.md', ...docs];
}

export interface Marker {
  kind: 'run' | 'skip';
  name: string;
  /** 1-based line of the marker. */
  line: number;
}

export interface DocBlock {
  /** Relative to the repository. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word, lower-cased ('' when the fence has none). */
  lang: string;
  /** The block's lines, the fence's indentation taken off (a block inside a list item). */
  code: string;
  marker?: Marker;
}

/** Something wrong with the markers themselves: a marker with no block, a misspelt one. */
export interface MarkerProblem {
  file: string;
  line: number;
  problem: string;
}

export interface ScannedDoc {
  blocks: DocBlock[];
  problems: MarkerProblem[];
}

const MARKER = /^\s*<!--\s*doc-example(-skip)?:\s*([a-z0-9][a-z0-9-]*)\s*-->\s*$/;
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;

/** Reads one Markdown file's fenced blocks with the marker before each. */
export function scanDoc(file: string, text: string): ScannedDoc {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  const problems: MarkerProblem[] = [];
  let pending: Marker | undefined;
  let open: { line: number; indent: number; fence: string; lang: string; body: string[] } | null =
    null;

  lines.forEach((raw, i) => {
    const n = i + 1;
    if (open) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(raw);
      if (close && close[1][0] === open.fence[0] && close[1].length >= open.fence.length) {
        blocks.push({
          file,
          line: open.line,
          lang: open.lang,
          code: open.body.join('\n') + '\n',
          marker: pending,
        });
        pending = undefined;
        open = null;
      } else {
        // Lines inside a list item's block carry the item's indentation; take it off.
        const strip = Math.min(open.indent, raw.length - raw.trimStart().length);
        open.body.push(raw.slice(strip));
      }
      return;
    }
    const fence = FENCE.exec(raw);
    if (fence) {
      open = {
        line: n,
        indent: fence[1].length,
        fence: fence[2],
        lang: fence[3].toLowerCase(),
        body: [],
      };
      return;
    }
    const marker = MARKER.exec(raw);
    if (marker) {
      if (pending)
        problems.push({
          file,
          line: pending.line,
          problem: `marker "${pending.name}" has no block`,
        });
      pending = { kind: marker[1] ? 'skip' : 'run', name: marker[2], line: n };
      return;
    }
    // A comment line that means to be a marker and is not one (prose may quote the markers).
    const comment = raw.trimStart().startsWith('<!--');
    if (comment && /readme-example:/.test(raw)) {
      problems.push({
        file,
        line: n,
        problem: 'a "readme-example" marker: the convention is now <!-- doc-example: NAME -->',
      });
      return;
    }
    if (comment && /doc-example/.test(raw)) {
      problems.push({
        file,
        line: n,
        problem: `a malformed marker (<!-- doc-example: NAME --> or <!-- doc-example-skip: NAME -->, NAME in lower-case letters, digits and -): ${raw.trim()}`,
      });
      return;
    }
    if (raw.trim() !== '' && pending) {
      problems.push({
        file,
        line: pending.line,
        problem: `marker "${pending.name}" is not followed by a code block`,
      });
      pending = undefined;
    }
  });
  if (pending)
    problems.push({ file, line: pending.line, problem: `marker "${pending.name}" has no block` });
  if (open)
    problems.push({
      file,
      line: (open as { line: number }).line,
      problem: 'a code block is never closed',
    });
  return { blocks, problems };
}

/** Every doc's blocks and marker problems, README first. */
export function scanDocs(root = REPO_ROOT): ScannedDoc {
  const all: ScannedDoc = { blocks: [], problems: [] };
  for (const file of docFiles(root)) {
    const scanned = scanDoc(file, readFileSync(join(root, file), 'utf8'));
    all.blocks.push(...scanned.blocks);
    all.problems.push(...scanned.problems);
  }
  return all;
}

/** Languages whose blocks are commands to paste into a shell. */
const SHELL_LANGS = new Set([
  'sh',
  'bash',
  'shell',
  'zsh',
  'console',
  'shell-session',
  'sh-session',
  'powershell',
  'ps1',
  'cmd',
  'bat',
]);

/** Lines a reader copies into a shell even from a block that names no shell language. */
const COMMAND_LINE = /^\s*(\$ |curl |herald |npm |npx |node |sudo |docker |pg_dump |pg_restore )/;

/**
 * Whether a block is something a reader runs, and so must be marked: a shell language, or an
 * unlabelled (or `text`, `http`) block that holds a prompt (`$ …`) or a command line such as
 * `curl …`. JSON, YAML, ini, nginx and source blocks are files and bodies, not commands.
 */
export function isRunnableBlock(block: DocBlock): boolean {
  if (SHELL_LANGS.has(block.lang)) return true;
  if (!['', 'text', 'http'].includes(block.lang)) return false;
  return block.code.split('\n').some((l) => COMMAND_LINE.test(l));
}

/**
 * The commands of a block as bash runs them: the block itself, or for a transcript (lines
 * starting `$ `, the output between them) the prompted lines and their `\` continuations.
 */
export function commandsOf(block: DocBlock): string {
  const lines = block.code.split('\n');
  if (!lines.some((l) => l.startsWith('$ '))) return block.code;
  const commands: string[] = [];
  let continued = false;
  for (const line of lines) {
    if (line.startsWith('$ ') || continued) {
      const command: string = continued ? line : line.slice(2);
      commands.push(command);
      continued = command.endsWith('\\');
    }
  }
  return commands.join('\n') + '\n';
}

/** Where a block is, for messages: `docs/hooks.md:148`. */
export const whereIs = (b: { file: string; line: number }): string => `${b.file}:${b.line}`;

/** A marked example by name, from a scan (throws with the docs' names when it is missing). */
export function markedExample(scan: ScannedDoc, name: string): DocBlock {
  const found = scan.blocks.filter((b) => b.marker?.name === name);
  if (found.length !== 1)
    throw new Error(
      `${found.length === 0 ? 'no' : found.length} blocks marked "${name}" in ${docFiles().join(', ')}`,
    );
  return found[0];
}
