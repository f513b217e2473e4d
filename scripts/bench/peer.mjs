/**
 * The delivery target for `npm run bench`: a keep-alive HTTP server in its own process that
 * answers every request 200 and counts them. GET /stats reports
 * {count, firstAt, lastAt, ids, complete, repeats} (times in epoch ms); DELETE /stats resets.
 * Prints its port on stdout.
 *
 * A request to /hook-a or /hook-b whose body carries `sid-<id>` (the bench's sends put an
 * autocannon id there) is also counted per send id: `ids` is how many sends were seen,
 * `complete` how many reached both hooks, `repeats` how many requests came again for a send and
 * hook already seen. Every send delivered exactly once to both is `ids = complete` with no
 * repeats. Other paths (/direct) are not read, so loading the peer directly stays cheap.
 */
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';

const HOOK_BITS = { '/hook-a': 1, '/hook-b': 2 };
const SEND_ID = /sid-([A-Za-z0-9_-]+)/;

let count = 0;
let firstAt = 0;
let lastAt = 0;
/** Send id → the hooks it reached, as bits. */
let seen = new Map();
let complete = 0;
let repeats = 0;

function countSend(bit, body) {
  const id = SEND_ID.exec(body)?.[1];
  if (!id) return;
  const before = seen.get(id) ?? 0;
  if (before & bit) repeats += 1;
  else if ((before | bit) === 3) complete += 1;
  seen.set(id, before | bit);
}

const server = createServer((req, res) => {
  const bit = HOOK_BITS[req.url];
  const chunks = [];
  if (bit) req.on('data', (c) => chunks.push(c));
  else req.resume();
  req.on('end', () => {
    if (req.url === '/stats') {
      if (req.method === 'DELETE') {
        count = 0;
        firstAt = 0;
        lastAt = 0;
        seen = new Map();
        complete = 0;
        repeats = 0;
      }
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ count, firstAt, lastAt, ids: seen.size, complete, repeats }));
      return;
    }
    const now = Date.now();
    count += 1;
    firstAt ||= now;
    lastAt = now;
    if (bit) countSend(bit, Buffer.concat(chunks).toString());
    res.setHeader('Content-Type', 'application/json');
    res.end('{"ok":true}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
