import { byIp, createLimiter, type Duration, MemoryStore, parseDuration, slidingWindow } from '@floodgate/core';
import type { LayerCall } from '@floodgate/core/store';
import { describe, expect, it } from 'vitest';
import { MAX_SLIDING_LOG_LIMIT } from '../../packages/core/src/algorithms/sliding-log.ts';
import { DEFAULTS } from '../../packages/core/src/base/defaults.ts';
import { readReadme, section } from './support/readmes.ts';

// Figures the READMEs state are the code's: the defaults in the failure timeline, the bounds, and
// the shape of a key.

/** `name` (value) pairs of the timeline's last column. */
function timelineSettings(): [string, string][] {
  const rows = section('README.md', 'When Redis fails')
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2);
  return rows.flatMap((row) => {
    const last = row.split('|').slice(1, -1).at(-1) ?? '';
    return [...last.matchAll(/`([\w.]+)` \(([^)]+)\)/g)].map(([, name, value]) => [name, value] as [string, string]);
  });
}

/** The default behind a setting name: `timeout`, `failMode`, `breaker.cooldown`. */
function defaultOf(name: string): unknown {
  const [head = '', tail] = name.split('.');
  const value = (DEFAULTS as Record<string, unknown>)[head];
  return tail === undefined ? value : (value as Record<string, unknown>)[tail];
}

describe('the failure timeline in the root README', () => {
  const settings = timelineSettings();

  it('names the deadline, the fail mode, the instances and every breaker setting', () => {
    expect(settings.map(([name]) => name).sort()).toEqual(
      [
        'timeout',
        'failMode',
        'instances',
        'breaker.failureThreshold',
        'breaker.failureWindow',
        'breaker.cooldown',
        'breaker.probeInterval',
      ].sort(),
    );
  });

  it.each(settings)('gives %s its default, %s', (name, shown) => {
    const value = shown.replace(/[`']/g, '');
    const expected = defaultOf(name);
    if (typeof expected === 'number' && /[a-z]/.test(value)) expect(parseDuration(value as Duration)).toBe(expected);
    else expect(typeof expected === 'number' ? Number(value) : value).toBe(expected);
  });

  it('states the local fallback bound', () => {
    expect(section('README.md', 'When Redis fails')).toContain(
      `at most ${DEFAULTS.fallbackKeys.toLocaleString('en-US')} keys`,
    );
  });
});

describe('@floodgate/core README', () => {
  it('states the largest slidingLog limit', () => {
    expect(readReadme('packages/core/README.md')).toContain(
      `\`limit\` is at most ${MAX_SLIDING_LOG_LIMIT.toLocaleString('en-US')}`,
    );
  });

  it('shows a key exactly as the limiter builds it', async () => {
    const shown = /`(fg:ip:sw\.\w+:\{203\.0\.113\.7\})`/.exec(readReadme('packages/core/README.md'))?.[1];
    const keys: string[] = [];
    class RecordingStore extends MemoryStore {
      override consumeNow(calls: readonly LayerCall[], requestId: string) {
        keys.push(...calls.map((call) => call.key));
        return super.consumeNow(calls, requestId);
      }
    }
    const limiter = createLimiter({
      store: new RecordingStore(),
      limits: [{ name: 'ip', key: byIp(), algorithm: slidingWindow({ limit: 300, window: '1m' }) }],
    });
    await limiter.consume({ ip: '203.0.113.7', header: () => undefined, req: {} });
    expect(keys).toEqual([shown]);
    expect(readReadme('packages/redis/README.md')).toContain(`\`${shown}\``);
  });
});
