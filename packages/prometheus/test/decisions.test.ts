import { createLimiter, fixedWindow } from '@floodgate/core';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { prometheusHooks } from '../src/index';
import { ctx, decisionOf, layer, seriesOf, sampleOf } from './support';

const DECISIONS = 'floodgate_decisions_total';
const NEAR = 'floodgate_near_limit_total';

function limiterWith(registry: Registry, limit: number, extra: Record<string, unknown> = {}) {
  return createLimiter({
    clock: () => 60_000,
    limits: [{ name: 'ip', key: (c) => c.ip, algorithm: fixedWindow({ limit, window: '1m' }) }],
    ...prometheusHooks({ registry, ...extra }),
  });
}

describe('decisions_total', () => {
  it('counts 7 allowed and 3 denied for 10 requests against a limit of 7', async () => {
    const registry = new Registry();
    const limiter = limiterWith(registry, 7);
    for (let i = 0; i < 10; i++) await limiter.consume(ctx('203.0.113.1'));
    expect(await seriesOf(registry, DECISIONS)).toEqual({
      'degraded=false,outcome=allowed,rule=ip': 7,
      'degraded=false,outcome=denied,rule=ip': 3,
      'degraded=false,outcome=shadow_denied,rule=ip': 0,
      'degraded=false,outcome=unavailable,rule=ip': 0,
      'degraded=true,outcome=allowed,rule=ip': 0,
      'degraded=true,outcome=denied,rule=ip': 0,
      'degraded=true,outcome=shadow_denied,rule=ip': 0,
      'degraded=true,outcome=unavailable,rule=ip': 0,
    });
  });

  it('counts each layer under its own rule, and never a key or an address', async () => {
    const registry = new Registry();
    const limiter = createLimiter({
      clock: () => 60_000,
      limits: [
        { name: 'ip', key: (c) => c.ip, algorithm: fixedWindow({ limit: 5, window: '1m' }) },
        { name: 'user', key: (c) => c.header('x-user'), algorithm: fixedWindow({ limit: 2, window: '1m' }) },
      ],
      ...prometheusHooks({ registry }),
    });
    const user = { ip: '198.51.100.9', header: (name: string) => (name === 'x-user' ? 'alice' : undefined), req: {} };
    for (let i = 0; i < 3; i++) await limiter.consume(user);
    await limiter.consume(ctx('198.51.100.10'));
    const allowed = (rule: string) => sampleOf(registry, DECISIONS, { rule, outcome: 'allowed', degraded: 'false' });
    const denied = (rule: string) => sampleOf(registry, DECISIONS, { rule, outcome: 'denied', degraded: 'false' });
    expect([await allowed('ip'), await denied('ip'), await allowed('user'), await denied('user')]).toEqual([
      4, 0, 2, 1,
    ]);
    const text = await registry.metrics();
    expect(text).not.toContain('alice');
    expect(text).not.toContain('198.51.100');
  });

  it("counts a shadow rule's denial as shadow_denied, and its other verdicts as any rule's", async () => {
    const registry = new Registry();
    const { onDecision } = prometheusHooks({ registry });
    const shadow = { shadow: true };
    onDecision({ decision: decisionOf([layer('ip', true, 5), layer('trial', false, 0, shadow)]) });
    onDecision({ decision: decisionOf([layer('trial', true, 1, shadow), layer('beta', false, 0, shadow)]) });
    onDecision({ decision: decisionOf([layer('ip', false, 0), layer('trial', false, 0, shadow)]) });
    // Without shadow mode's mark (an older core), a denial is a denial.
    onDecision({ decision: decisionOf([layer('beta', false, 0)]) });
    const series = await seriesOf(registry, DECISIONS);
    const count = (rule: string, outcome: string) => series[`degraded=false,outcome=${outcome},rule=${rule}`];
    expect([count('ip', 'allowed'), count('ip', 'denied'), count('ip', 'shadow_denied')]).toEqual([1, 1, 0]);
    expect([count('trial', 'allowed'), count('trial', 'denied'), count('trial', 'shadow_denied')]).toEqual([1, 0, 2]);
    expect([count('beta', 'denied'), count('beta', 'shadow_denied')]).toEqual([1, 1]);
    // An allowed shadow verdict near its limit is near its limit.
    expect(await sampleOf(registry, NEAR, { rule: 'trial' })).toBe(1);
  });

  it('labels a decision made without the store degraded, and failMode closed as unavailable', async () => {
    const registry = new Registry();
    const { onDecision } = prometheusHooks({ registry });
    onDecision({ decision: decisionOf([layer('ip', true, 4)], { degraded: true }) });
    onDecision({ decision: decisionOf([layer('ip', false, 0)], { degraded: true }) });
    onDecision({ decision: decisionOf([layer('ip', false, 0)], { degraded: true, unavailable: true }) });
    // failMode 'closed' refuses a shadow layer too: the store's absence, not the rule's verdict.
    onDecision({
      decision: decisionOf([layer('ip', false, 0), layer('trial', false, 0, { shadow: true })], {
        degraded: true,
        unavailable: true,
      }),
    });
    const series = await seriesOf(registry, DECISIONS);
    expect(series['degraded=true,outcome=allowed,rule=ip']).toBe(1);
    expect(series['degraded=true,outcome=denied,rule=ip']).toBe(1);
    expect(series['degraded=true,outcome=unavailable,rule=ip']).toBe(2);
    expect(series['degraded=true,outcome=unavailable,rule=trial']).toBe(1);
    expect(Object.values(series).reduce((a, b) => a + b)).toBe(5);
  });

  it('makes label children once per rule, none per request', async () => {
    const registry = new Registry();
    const limiter = limiterWith(registry, 1000);
    const decisions = registry.getSingleMetric(DECISIONS) as unknown as { labels: (...args: unknown[]) => unknown };
    const labels = decisions.labels;
    let made = 0;
    decisions.labels = (...args) => {
      made++;
      return labels.apply(decisions, args);
    };
    for (let i = 0; i < 200; i++) await limiter.consume(ctx(`192.0.2.${i % 50}`));
    expect(made).toBe(8);
    expect(await sampleOf(registry, DECISIONS, { rule: 'ip', outcome: 'allowed', degraded: 'false' })).toBe(200);
  });

  it('counts nothing for a request no rule applied to', async () => {
    const registry = new Registry();
    prometheusHooks({ registry }).onDecision({ decision: decisionOf([]) });
    expect(await registry.getSingleMetric(DECISIONS)?.get()).toMatchObject({ values: [] });
  });
});

describe('near_limit_total', () => {
  it('counts allowed verdicts that leave less than 20 % of the limit', async () => {
    const registry = new Registry();
    const limiter = limiterWith(registry, 10);
    // remaining after each: 9 8 7 6 5 4 3 2 1 0, then two denials (not near: over).
    for (let i = 0; i < 12; i++) await limiter.consume(ctx('203.0.113.2'));
    expect(await sampleOf(registry, NEAR, { rule: 'ip' })).toBe(2);
  });

  it('takes its share from nearLimitShare', async () => {
    const registry = new Registry();
    const limiter = limiterWith(registry, 10, { nearLimitShare: 0.5 });
    for (let i = 0; i < 10; i++) await limiter.consume(ctx('203.0.113.3'));
    expect(await sampleOf(registry, NEAR, { rule: 'ip' })).toBe(5);
  });

  it('does not count a shadow denial or an unavailable verdict as near', async () => {
    const registry = new Registry();
    const { onDecision } = prometheusHooks({ registry });
    onDecision({ decision: decisionOf([layer('ip', false, 0, { shadow: true })]) });
    onDecision({ decision: decisionOf([layer('ip', false, 0)], { degraded: true, unavailable: true }) });
    expect(await sampleOf(registry, NEAR, { rule: 'ip' })).toBe(0);
  });
});
