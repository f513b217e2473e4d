/**
 * The accept ceiling for `npm run bench`: a bare Express app in its own process that parses the
 * same JSON body and answers the same envelope as Herald's send APIs, and nothing else.
 * Prints its port on stdout.
 */
import express from 'express';

const app = express();
app.post('/api/v2/message/send', express.json(), (req, res) => {
  res.json({ code: 200, msg: 'success', data: { token: req.body.token, count: 1 } });
});
app.post('/api/v1/message/send', express.json(), (req, res) => {
  res.json({ code: 200, msg: 'success', data: { status: 'queued', count: 1 } });
});
const server = app.listen(0, '127.0.0.1', () => console.log(server.address().port));
