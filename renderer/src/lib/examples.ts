/** Ready-to-run calls of the send APIs, filled with a real token and Herald's own URL. */

export type ExampleLanguage = 'curl' | 'python' | 'node' | 'go';
export const EXAMPLE_LANGUAGES: readonly ExampleLanguage[] = ['curl', 'python', 'node', 'go'];

export interface ExampleInput {
  /** Herald's origin as the browser sees it, e.g. http://127.0.0.1:8765. */
  origin: string;
  api: 'v1' | 'v2';
  token: string;
  /** V2: placeholder keys with sample values. */
  placeholders?: Record<string, string>;
  /** Sample recipients, when an instance takes them from the request. */
  recipients?: string[];
}

/** The JSON body each example sends. */
export function exampleBody(input: ExampleInput): Record<string, unknown> {
  const body: Record<string, unknown> = { token: input.token, title: 'Hello from Herald' };
  if (input.api === 'v1') {
    body.text = 'Backup finished: 12 GB in 4 min.';
    body.markdown = '**Backup finished**: 12 GB in 4 min.';
  } else {
    body.placeholders = input.placeholders ?? {};
  }
  if (input.recipients && input.recipients.length > 0) body.recipients = input.recipients;
  return body;
}

function endpoint(input: ExampleInput): string {
  return `${input.origin.replace(/\/+$/, '')}/api/${input.api}/message/send`;
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? line : pad + line))
    .join('\n');
}

/** One example program in the given language. */
export function buildExample(language: ExampleLanguage, input: ExampleInput): string {
  const url = endpoint(input);
  const body = exampleBody(input);
  const json = JSON.stringify(body, null, 2);
  switch (language) {
    case 'curl':
      return [
        `curl -sS -X POST ${shellQuote(url)} \\`,
        `  -H 'Content-Type: application/json' \\`,
        // Single quotes keep newlines, so the body stays readable.
        `  -d ${shellQuote(json)}`,
      ].join('\n');
    case 'python':
      return [
        'import json',
        'import urllib.request',
        '',
        `body = ${pythonLiteral(body)}`,
        'req = urllib.request.Request(',
        `    ${JSON.stringify(url)},`,
        '    data=json.dumps(body).encode("utf-8"),',
        '    headers={"Content-Type": "application/json"},',
        '    method="POST",',
        ')',
        'with urllib.request.urlopen(req, timeout=30) as res:',
        '    print(json.load(res))',
      ].join('\n');
    case 'node':
      return [
        '// Node.js 18 or later (global fetch); save as send.mjs and run `node send.mjs`.',
        `const res = await fetch(${JSON.stringify(url)}, {`,
        "  method: 'POST',",
        "  headers: { 'Content-Type': 'application/json' },",
        `  body: JSON.stringify(${indent(json, 2)}),`,
        '});',
        'console.log(res.status, await res.json());',
      ].join('\n');
    case 'go':
      return [
        'package main',
        '',
        'import (',
        '\t"bytes"',
        '\t"fmt"',
        '\t"io"',
        '\t"net/http"',
        ')',
        '',
        'func main() {',
        `\tbody := []byte(${goRawString(json)})`,
        `\tres, err := http.Post(${JSON.stringify(url)}, "application/json", bytes.NewReader(body))`,
        '\tif err != nil {',
        '\t\tpanic(err)',
        '\t}',
        '\tdefer res.Body.Close()',
        '\treply, _ := io.ReadAll(res.Body)',
        '\tfmt.Println(res.StatusCode, string(reply))',
        '}',
      ].join('\n');
  }
}

/** The bodies hold only strings, arrays and objects, and such JSON is also a Python literal. */
function pythonLiteral(value: unknown): string {
  return JSON.stringify(value, null, 4);
}

/** A Go raw string cannot hold a backquote: splice those in as interpreted strings. */
function goRawString(text: string): string {
  return '`' + text.replace(/`/g, '` + "`" + `') + '`';
}
