/**
 * The accept ceiling for `npm run bench`: a bare Express app in its own process that parses the
 * same JSON body and answers the same envelope as Herald's send APIs, and nothing else.
 * Prints its port on stdout.
 *
 * `--born`: the same app on a server whose requests and responses are born with Express's
 * prototypes (server/lib/express-born-requests.ts), as Herald's are: the ceiling with the one
 * optimisation of Herald's that any Express app could make, so the bench can say how much of
 * Herald's ratio it accounts for.
 */
import http from 'node:http';

import express from 'express';

import { expressBornClasses } from '../../server/lib/express-born-requests';

const app = express();
app.post('/api/v2/message/send', express.json(), (req, res) => {
  res.json({ code: 200, msg: 'success', data: { token: req.body.token, count: 1 } });
});
app.post('/api/v1/message/send', express.json(), (req, res) => {
  res.json({ code: 200, msg: 'success', data: { status: 'queued', count: 1 } });
});
const server = http.createServer(
  process.argv.includes('--born') ? expressBornClasses(app) : {},
  app,
);
server.listen(0, '127.0.0.1', () => console.log((server.address() as { port: number }).port));
