/**
 * The delivery target for `npm run bench`: a keep-alive HTTP server in its own process that
 * answers every request 200 and counts them. GET /stats reports
 * {count, firstAt, lastAt} (epoch ms); DELETE /stats resets.
 * Prints its port on stdout.
 */
import { createServer } from 'node:http';

let count = 0;
let firstAt = 0;
let lastAt = 0;

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url === '/stats') {
      if (req.method === 'DELETE') {
        count = 0;
        firstAt = 0;
        lastAt = 0;
      }
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ count, firstAt, lastAt }));
      return;
    }
    const now = Date.now();
    count += 1;
    firstAt ||= now;
    lastAt = now;
    res.setHeader('Content-Type', 'application/json');
    res.end('{"ok":true}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
