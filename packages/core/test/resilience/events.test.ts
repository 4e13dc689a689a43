import { describe, expect, it } from 'vitest';
import { createLimiter, fixedWindow, type DecisionEvent } from '@floodgate/core';
import { contextOf } from '../keys/context';

const ctx = (ip: string) => contextOf({ ip });
const limits = [
  { name: 'ip', key: (c: { ip: string | undefined }) => c.ip, algorithm: fixedWindow({ limit: 1, window: 60_000 }) },
];

describe('event hooks', () => {
  it('reports every decision to onDecision and denied ones to onLimited, with the keys', async () => {
    const decisions: DecisionEvent[] = [];
    const limited: DecisionEvent[] = [];
    const limiter = createLimiter({
      limits,
      clock: () => 0,
      onDecision: (event) => decisions.push(event),
      onLimited: (event) => limited.push(event),
    });
    await limiter.consume(ctx('a'));
    await limiter.consume(ctx('a'));
    expect(decisions.map((event) => event.decision.allowed)).toEqual([true, false]);
    expect(limited).toHaveLength(1);
    expect(limited[0]?.keys).toEqual([expect.stringMatching(/^fg:ip:fw\.[0-9a-z]+:\{a\}$/)]);
    expect(limited[0]?.ctx.ip).toBe('a');
  });

  it('catches a hook that throws or rejects: the request gets its decision', async () => {
    const calls: string[] = [];
    const warnings: unknown[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args[0]);
    try {
      const limiter = createLimiter({
        limits,
        clock: () => 0,
        onDecision: () => {
          calls.push('decision');
          throw new Error('broken metrics');
        },
        onLimited: async () => {
          calls.push('limited');
          throw new Error('broken async metrics');
        },
      });
      expect((await limiter.consume(ctx('a'))).allowed).toBe(true);
      const denied = await limiter.consume(ctx('a'));
      expect(denied).toMatchObject({ allowed: false, rule: 'ip' });
      expect((await limiter.consume(ctx('a'))).allowed).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(calls).toEqual(['decision', 'decision', 'limited', 'decision', 'limited']);
      expect(warnings).toHaveLength(2);
    } finally {
      console.warn = warn;
    }
  });
});
