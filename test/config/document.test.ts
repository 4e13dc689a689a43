import { limitsSchema } from '@floodgate/config';
import { byIp, createLimiter, rulesFromDocument } from '@floodgate/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { contextOf } from '../helpers/context.ts';
import { after, before } from './documents.ts';

/**
 * Issue 24: the limits document. The published JSON Schema and the library's own checks agree on
 * what a document may say; the library refuses a bad one with the coded errors of the code
 * options, naming the path in the document.
 */

const validate = new Ajv2020({ allErrors: true }).compile(limitsSchema);
type Req = { user?: string; org?: string };
const code = { user: (req: Req) => req.user, tenant: (req: Req) => req.org };

const everything = {
  $schema: './node_modules/@floodgate/config/dist/limits.schema.json',
  version: 1,
  rules: [
    {
      name: 'ip',
      key: { source: 'ip', ipv6Subnet: 48 },
      algorithm: { type: 'slidingWindow', limit: 300, window: '1m' },
    },
    {
      name: 'login',
      key: { source: 'ip' },
      algorithm: { type: 'fixedWindow', limit: 5, window: '15m' },
      blockDuration: '15m',
      escalate: { period: '1h', max: '4h' },
    },
    {
      name: 'user',
      key: { source: 'user' },
      algorithm: { type: 'tokenBucket', capacity: 50, refillRate: 5, reserve: 0.2 },
      tenants: { acme: { type: 'tokenBucket', capacity: 500, refillRate: 50 } },
    },
    {
      name: 'partner',
      key: { source: 'apiKey', header: 'authorization' },
      algorithm: { type: 'gcra', rate: 10, period: '1s', burst: 20 },
    },
    {
      name: 'tenant',
      key: { source: 'header', name: 'x-tenant-id', hash: true },
      algorithm: { type: 'leakyBucket', capacity: 100, leakRate: 10, mode: 'policing' },
      lease: { size: 10, ttl: '1s' },
    },
    { name: 'inflight', key: { source: 'ip' }, algorithm: { type: 'concurrency', max: 10, lease: '30s' } },
    {
      name: 'log',
      key: { source: 'global' },
      algorithm: { type: 'slidingLog', limit: 1000, window: '1m' },
      shadow: true,
    },
  ],
};

describe('a valid document', () => {
  it.each([
    ['before', before],
    ['after', after],
    ['every feature', everything],
  ])('%s passes the published schema and becomes rules createLimiter takes', (_, document) => {
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    const limits = rulesFromDocument(document, code);
    expect(limits.map((rule) => rule.name)).toEqual(document.rules.map((rule) => rule.name));
    expect(() => createLimiter({ limits })).not.toThrow();
  });

  it('gives a tenant its own algorithm, picked by the tenant function in code', async () => {
    const doc = {
      rules: [
        {
          name: 'api',
          key: { source: 'ip' },
          algorithm: { type: 'fixedWindow', limit: 1, window: '1h' },
          tenants: { acme: { type: 'fixedWindow', limit: 3, window: '1h' } },
        },
      ],
    };
    const limiter = createLimiter({ limits: rulesFromDocument(doc, code) });
    const acme = contextOf({ ip: '203.0.113.1', req: { org: 'acme' } });
    const other = contextOf({ ip: '203.0.113.2', req: { org: 'globex' } });
    expect((await limiter.consume(acme)).limit).toBe(3);
    expect((await limiter.consume(other)).limit).toBe(1);
    expect((await limiter.consume(other)).allowed).toBe(false);
  });
});

describe('a bad document', () => {
  const rule = (extra: Record<string, unknown>) => ({
    rules: [
      { name: 'ip', key: { source: 'ip' }, algorithm: { type: 'fixedWindow', limit: 5, window: '1m' }, ...extra },
    ],
  });
  it.each([
    ['no rules', { rules: [] }, 'limits document.rules must be an array of 1 to 64 rules'],
    ['an unknown top-level key', { ...before, limits: [] }, 'limits document: unknown option "limits"'],
    ['an unknown rule key', rule({ limit: 5 }), 'limits document.rules[0]: unknown option "limit"'],
    [
      'an unknown algorithm',
      rule({ algorithm: { type: 'bucket' } }),
      'limits document.rules[0].algorithm.type must be one of',
    ],
    [
      'a missing window',
      rule({ algorithm: { type: 'fixedWindow', limit: 5 } }),
      'limits document.rules[0].algorithm: fixedWindow.window',
    ],
    [
      'a zero limit',
      rule({ algorithm: { type: 'fixedWindow', limit: 0, window: '1m' } }),
      'limits document.rules[0].algorithm: fixedWindow.limit',
    ],
    [
      'an unknown key source',
      rule({ key: { source: 'cookie' } }),
      'limits document.rules[0].key.source must be one of',
    ],
    ['a header source without a name', rule({ key: { source: 'header' } }), 'limits document.rules[0].key.name'],
    ['a bad duration', rule({ blockDuration: 'soon' }), 'blockDuration'],
    ['a second version', { ...before, version: 2 }, 'limits document.version must be 1'],
  ])('%s is refused by the library (coded, with the path) and by the schema', (_, document, message) => {
    expect(validate(document)).toBe(false);
    expect(() => createLimiter({ limits: rulesFromDocument(document, code) })).toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION', message: expect.stringContaining(message) }),
    );
  });

  it('needs the user and tenant functions from code for user keys and tenant overrides', () => {
    const user = {
      rules: [{ name: 'u', key: { source: 'user' }, algorithm: { type: 'fixedWindow', limit: 5, window: '1m' } }],
    };
    expect(() => rulesFromDocument(user)).toThrow(
      expect.objectContaining({
        code: 'ERR_FLOODGATE_INVALID_OPTION',
        message: expect.stringContaining("source 'user' needs the user option"),
      }),
    );
    const tenants = { rules: [{ ...before.rules[0], tenants: {} }] };
    expect(() => rulesFromDocument(tenants)).toThrow(
      expect.objectContaining({ message: expect.stringContaining('needs the tenant option') }),
    );
  });

  it('keeps the code options to code: key functions and priorities cannot be written in a document', () => {
    expect(() =>
      createLimiter({ limits: rulesFromDocument({ rules: [{ name: 'p', key: byIp(), algorithm: {} }] }) }),
    ).toThrow(expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION' }));
    expect(validate({ rules: [{ ...before.rules[0], priority: 'critical' }] })).toBe(false);
  });
});
