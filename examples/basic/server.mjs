// The smallest Floodgate app: a plain node:http server limited to 5 requests per 10 s per IP.
// Run it with `pnpm start` from the repository root, then: curl -i http://127.0.0.1:3000/
import { createServer } from 'node:http';
import { createLimiter, fixedWindow } from '@floodgate/core';

const limiter = createLimiter({
  limits: [{ name: 'ip', key: (ctx) => ctx.ip, algorithm: fixedWindow({ limit: 5, window: '10 s' }) }],
});

const server = createServer(async (req, res) => {
  const decision = await limiter.consume({
    ip: req.socket.remoteAddress,
    header: (name) => req.headers[name.toLowerCase()]?.toString(),
    req,
  });
  res.setHeader('X-RateLimit-Limit', decision.limit);
  res.setHeader('X-RateLimit-Remaining', decision.remaining);
  if (!decision.allowed) {
    res.writeHead(429, { 'Retry-After': Math.ceil(decision.retryAfter / 1000), 'Content-Type': 'text/plain' });
    res.end('Too many requests, slow down.\n');
    return;
  }
  res.end(`Hello! ${decision.remaining} requests left in this window.\n`);
});

const port = Number(process.env.PORT ?? 3000);
server.listen(port, '127.0.0.1', () => console.log(`example listening on http://127.0.0.1:${port}/`));
