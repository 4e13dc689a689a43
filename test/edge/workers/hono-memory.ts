import { Hono } from 'hono';
import { getConnInfo } from 'hono/cloudflare-workers';
import { byIp, MemoryStore, rateLimiter, slidingLog } from '@floodgate/hono';

// Module scope lives as long as the isolate: this MemoryStore counts the requests one isolate
// serves, and no other isolate (another Worker, another location, a restart) sees its counts.
const store = new MemoryStore();
const limits = [{ name: 'ip', key: byIp(), algorithm: slidingLog({ limit: 5, window: '1h' }) }];

const app = new Hono();
app.use('/limited/*', rateLimiter({ store, limits, getConnInfo }));
app.use('/refunding/*', rateLimiter({ store, limits, prefix: 'refunding', getConnInfo, skipFailedRequests: true }));
app.get('/limited/*', (c) => c.json(c.get('rateLimit')));
app.get('/refunding/ok', (c) => c.json(c.get('rateLimit')));
app.get('/refunding/fail', (c) => c.json({ failed: true }, 500));

export default app;
