/**
 * README.md and docs/*.md stay navigable: every relative link names a file that exists, every
 * `#anchor` names a heading (or an `<a id>`) of the page it points into, every fenced block is
 * closed, no table row sits outside a table (a row after a paragraph, or a table without its
 * `| --- |` line, renders as a paragraph of pipes), and every `npm run NAME` is a real script. Read with marked, the Markdown parser Herald
 * already ships, so a link inside a code block or a code span is not taken for one.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { Lexer, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');

/** README.md and every docs/*.md, relative to the repository. */
function docFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join('docs', f));
  return ['README.md', ...docs];
}

/** A heading's text as it reads, without its Markdown (code spans keep their text). */
function plainText(tokens: readonly Token[]): string {
  return tokens
    .map((t) => {
      if ('tokens' in t && t.tokens) return plainText(t.tokens);
      if (t.type === 'html') return '';
      return 'text' in t ? String(t.text) : '';
    })
    .join('');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (not `-` or `_`), spaces as `-`. */
function githubSlug(heading: string): string {
  return heading
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every token of a page, nested ones (list items, table cells, link texts) included. */
function* allTokens(tokens: readonly Token[]): Generator<Token> {
  for (const t of tokens) {
    yield t;
    if ('tokens' in t && t.tokens) yield* allTokens(t.tokens);
    if (t.type === 'list') yield* allTokens((t as Tokens.List).items);
    if (t.type === 'table') {
      const table = t as Tokens.Table;
      for (const cell of [...table.header, ...table.rows.flat()]) yield* allTokens(cell.tokens);
    }
  }
}

interface Page {
  anchors: Set<string>;
  links: Array<{ href: string; raw: string }>;
  /** Fences that run to the end of the page, and table rows that did not make a table. */
  brokenBlocks: string[];
}

function readPage(file: string): Page {
  const tokens = new Lexer({ gfm: true }).lex(readFileSync(join(REPO_ROOT, file), 'utf8'));
  const page: Page = { anchors: new Set(), links: [], brokenBlocks: [] };
  const repeats = new Map<string, number>();
  for (const t of allTokens(tokens)) {
    if (t.type === 'heading') {
      // GitHub numbers repeated headings: #usage, #usage-1, #usage-2.
      const slug = githubSlug(plainText((t as Tokens.Heading).tokens));
      const seen = repeats.get(slug) ?? 0;
      repeats.set(slug, seen + 1);
      page.anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
    } else if (t.type === 'html') {
      for (const m of t.raw.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) page.anchors.add(m[1]);
    } else if (t.type === 'link' || t.type === 'image') {
      page.links.push({ href: (t as Tokens.Link).href, raw: t.raw });
    } else if (t.type === 'code') {
      const lines = t.raw.trimEnd().split('\n');
      const fence = /^\s*(`{3,}|~{3,})/.exec(lines[0])?.[1];
      if (fence && (lines.length < 2 || !lines[lines.length - 1].trim().startsWith(fence))) {
        page.brokenBlocks.push(`a fence that is never closed: ${lines[0].trim()}`);
      }
    } else if (t.type === 'paragraph' && /^\s*\|.*\|\s*$/m.test(t.raw)) {
      const row = t.raw.split('\n').find((l) => /^\s*\|/.test(l)) ?? '';
      page.brokenBlocks.push(`table rows outside a table: ${row.slice(0, 100)}`);
    }
  }
  return page;
}

const files = docFiles();
const pages = new Map(files.map((file) => [file, readPage(file)]));

describe("the docs' links and blocks", () => {
  it('reads every page, and finds links and anchors in them (the check has something to check)', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/console-api.md');
    expect(pages.get('README.md')!.anchors).toContain('configuration');
    expect(pages.get('docs/send-api.md')!.anchors).toContain('share-links-hostmessageurl');
    const links = [...pages.values()].flatMap((p) => p.links);
    expect(links.filter((l) => l.href.includes('#')).length).toBeGreaterThan(20);
  });

  it.each(files)('%s: every relative link and #anchor resolves', (file) => {
    const broken: string[] = [];
    for (const { href } of pages.get(file)!.links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:: not this test's
      const hash = href.indexOf('#');
      const path = decodeURIComponent(hash === -1 ? href : href.slice(0, hash));
      const anchor = hash === -1 ? undefined : decodeURIComponent(href.slice(hash + 1));
      const target = path === '' ? file : join(dirname(file), path);
      if (!existsSync(join(REPO_ROOT, target))) {
        broken.push(`${href}: there is no ${target}`);
        continue;
      }
      const targetPage = pages.get(target);
      if (anchor !== undefined && targetPage && !targetPage.anchors.has(anchor)) {
        broken.push(`${href}: ${target} has no heading whose anchor is #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it.each(files)('%s: fences are closed and table rows are in tables', (file) => {
    expect(pages.get(file)!.brokenBlocks).toEqual([]);
  });

  it.each(files)('%s: every `npm run NAME` it mentions is a script of package.json', (file) => {
    const scripts = Object.keys(
      (
        JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
          scripts: Record<string, string>;
        }
      ).scripts,
    );
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    const named = [...text.matchAll(/npm run ([\w:.-]*\w)/g)].map((m) => m[1]);
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
  });
});
