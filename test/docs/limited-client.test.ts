import { type Duration, parseDuration } from '@floodgate/core';
import { describe, expect, it } from 'vitest';
import { codeBlocks } from './support/readmes.ts';
import { runSnippet } from './support/run.ts';
import { userApp } from './support/user-app.ts';
import type { CodeBlock } from './support/readmes.ts';
import type { Answer } from './support/run.ts';

// The adapters' "Controls and the status route" snippets hold the routes a client the limiter
// refuses must still reach: the status route and a CAPTCHA route that gives it a fresh quota. Each
// is run as pasted, in the user app, into the app its README's fragments assume (`app`, `limits`,
// `store`, `verifyCaptcha`), whose limiter has, beside one layer per client, a global ceiling and
// a tenant layer every member of the tenant shares. A client is then limited, and the test checks
// that it still reaches those routes, and that what it triggers there touches no one else.

/** What each adapter's fragments take from their surroundings, and a route and a server after them. */
const APPS: Record<string, { prelude: string; epilogue: string }> = {
  'packages/express/README.md': {
    prelude: `
import expressForDocs from 'express';
import * as fg from '@floodgate/express';
const app = expressForDocs();
const verifyCaptcha = async (req) => req.get('x-captcha') === 'solved';
`,
    epilogue: `
app.get('/', (req, res) => res.json(req.rateLimit?.results ?? null));
app.listen(3000);
`,
  },
  'packages/fastify/README.md': {
    prelude: `
import fastifyForDocs from 'fastify';
import * as fg from '@floodgate/fastify';
const app = fastifyForDocs();
const verifyCaptcha = async (request) => request.headers['x-captcha'] === 'solved';
`,
    epilogue: `
app.get('/', async (request) => request.rateLimit?.results ?? null);
await app.listen({ port: 3000 });
`,
  },
  'packages/hono/README.md': {
    prelude: `
import { Hono as HonoForDocs } from 'hono';
import { serve as serveForDocs } from '@hono/node-server';
import * as fg from '@floodgate/hono';
const app = new HonoForDocs();
const verifyCaptcha = async (c) => c.req.header('x-captcha') === 'solved';
`,
    epilogue: `
app.get('/', (c) => c.json(c.get('rateLimit')?.results ?? null));
serveForDocs({ fetch: app.fetch, port: 3000 });
`,
  },
};

/** Three requests a minute per user (a header stands for the signed-in user), a global ceiling, a tenant. */
const LAYERS = `
const store = new fg.MemoryStore();
const limits = [
  { name: 'user', key: fg.byHeader('x-user'), scope: 'client', algorithm: fg.fixedWindow({ limit: 3, window: '1m' }) },
  { name: 'global', key: () => 'all', algorithm: fg.fixedWindow({ limit: 1000, window: '1m' }) },
  { name: 'tenant', key: fg.byHeader('x-tenant-id'), algorithm: fg.fixedWindow({ limit: 500, window: '1m' }) },
];
`;

/**
 * The layers' windows, in ms: they count on the real clock, aligned to the epoch, so the harness
 * waits, when needed, until none of them ends during the steps (alice's 4th request would pass).
 */
const WINDOWS = [...LAYERS.matchAll(/\bwindow: '([^']+)'/g)]
  .map((match) => parseDuration(match[1] as Duration))
  .join(',');

const member = (user: string) => ({ 'x-user': user, 'x-tenant-id': 'acme' });
const alice = member('alice');
const STEPS = [
  ...Array.from({ length: 4 }, () => ({ path: '/', headers: alice })),
  { path: '/rate_limit', headers: alice },
  { method: 'POST', path: '/captcha', headers: alice },
  { method: 'POST', path: '/captcha', headers: { ...alice, 'x-captcha': 'solved' } },
  { path: '/', headers: alice },
  { method: 'POST', path: '/wp-login.php', headers: member('scanner') },
  { path: '/', headers: member('scanner') },
  { path: '/', headers: member('bob') },
];

const app = userApp();

/** Each layer's remaining, as the catch-all route reports them. */
const remaining = (answer: Answer | undefined) =>
  Object.fromEntries(
    (JSON.parse(answer?.body ?? '[]') as { rule: string; remaining: number }[]).map((layer) => [
      layer.rule,
      layer.remaining,
    ]),
  );

describe.each(Object.keys(APPS))('%s: the routes a limited client must reach', (readme) => {
  const blocks = codeBlocks(readme).filter(
    (block) => block.heading === 'Controls and the status route' && block.lang === 'ts',
  );

  it('are in one snippet, which runs as pasted into an app with a global ceiling and a tenant layer', async () => {
    expect(blocks).toHaveLength(1);
    const block = blocks[0] as CodeBlock;
    const { prelude, epilogue } = APPS[readme] as { prelude: string; epilogue: string };
    const assembled: CodeBlock = {
      ...block,
      readme: `${readme}.limited`,
      code: `${prelude}${LAYERS}${block.code}${epilogue}`,
    };
    const result = await runSnippet(app.dir, assembled, { PROBE_STEPS: JSON.stringify(STEPS), PROBE_WINDOWS: WINDOWS });
    expect(result.stderr.split('\n').filter((line) => /Error|at /.test(line))).toEqual([]);
    const answers = result.probe?.steps ?? [];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429, 200, 403, 204, 200, 404, 429, 200]);
    // Limited, alice still gets her standing: her own layer only, not the others' traffic.
    expect(JSON.parse(answers[4]?.body ?? '{}')).toMatchObject({ resources: { user: { remaining: 0, used: 3 } } });
    expect(Object.keys(JSON.parse(answers[4]?.body ?? '{}').resources)).toEqual(['user']);
    // The CAPTCHA gave her quota back, and only hers: the shared counts remember her 4 requests.
    expect(remaining(answers[7])).toEqual({ user: 2, global: 996, tenant: 496 });
    // The scanner's block reached neither the tenant nor the global ceiling: bob is let in.
    expect(JSON.parse(answers[9]?.body ?? '{}')['violated-policies']).toEqual(['user']);
    expect(remaining(answers[10])).toEqual({ user: 2, global: 994, tenant: 494 });
  });
});
