import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built packages (dist/, produced by `turbo run build` before this suite), loaded the way users
// load them: `import` from ESM and `require` from CommonJS, in a plain Node process.
const here = fileURLToPath(new URL('.', import.meta.url));

/** The user API: what @floodgate/core exports, and what every adapter re-exports with its own names. */
const USER_API = [
  'createLimiter',
  'MemoryStore',
  'fixedWindow',
  'slidingLog',
  'slidingWindow',
  'tokenBucket',
  'leakyBucket',
  'gcra',
  'concurrency',
  'adaptiveConcurrency',
  'byIp',
  'byHeader',
  'byApiKey',
  'byUser',
  'layered',
  'buildHeaders',
  'parseDuration',
  'rulesFromDocument',
  'limitsPublisher',
  'WarningCode',
  'FloodgateError',
  'InvalidOptionError',
  'InvalidOptionTypeError',
  'InvalidCostError',
  'StoreError',
  'StoreTimeoutError',
];

/** Exactly these names, no more: a name that leaks into an entry is public API by accident. */
const expected: Record<string, string[]> = {
  '@floodgate/core': USER_API,
  '@floodgate/core/store': [
    'Deadlines',
    'withDeadline',
    'MAX_TIMER_MS',
    'timerOption',
    'windowOption',
    'show',
    'usableLimit',
    'functionOption',
    'oneOfOption',
    'rejectUnknownKeys',
    'requireObject',
    'consoleWarning',
    'onceWarner',
    'consumeLayers',
    'peekLayers',
    'quotaSpent',
  ],
  '@floodgate/core/http': [
    'ABORTED',
    'Gate',
    'Denial',
    'parseHttpOptions',
    'closedStatus',
    'closeSignal',
    'nodeHeader',
    'parsePeerOptions',
    'clientIpResolver',
    'describeTrust',
    'ipMatcher',
    'routeOverride',
    'TurnQueue',
    'LimiterDecision',
    'isThenable',
    'writeHeaders',
    'parseHeaderModes',
    'buildProblem',
    'negotiateProblem',
    'controlsOf',
    'statusReport',
    'checkStep',
    'finishAround',
    'finishOnNode',
    'inTurns',
    'StatusOwners',
  ],
  '@floodgate/redis': ['RedisStore', 'redisClientAdapter'],
  '@floodgate/regions': ['RegionalStore'],
  '@floodgate/config': ['limitsFromFile', 'limitsFromRedis', 'publishLimits', 'limitsSchema'],
  '@floodgate/express': [...USER_API, 'rateLimit', 'rateLimitStatus'],
  '@floodgate/fastify': [...USER_API, 'floodgate', 'default'],
  '@floodgate/hono': [...USER_API, 'rateLimiter', 'rateLimitStatus'],
  '@floodgate/koa': [...USER_API, 'rateLimit', 'rateLimitStatus'],
  '@floodgate/nestjs': [
    ...USER_API,
    'FloodgateModule',
    'FloodgateGuard',
    'FloodgateService',
    'RateLimit',
    'SkipRateLimit',
    'RateLimitException',
    'statusController',
    'FLOODGATE_OPTIONS',
  ],
};

function exportedNames(pkg: string, mode: 'esm' | 'cjs'): string[] {
  const script =
    mode === 'esm'
      ? `import(${JSON.stringify(pkg)}).then((m) => console.log(JSON.stringify(Object.keys(m))))`
      : `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(pkg)}))))`;
  const args = mode === 'esm' ? ['--input-type=module', '-e', script] : ['-e', script];
  return JSON.parse(execFileSync(process.execPath, args, { cwd: here, encoding: 'utf8' }));
}

describe.each(Object.entries(expected))('%s built package', (pkg, names) => {
  const [, name, entry = 'index'] = pkg.split('/');
  const dist = fileURLToPath(new URL(`../../packages/${name}/dist/${entry}.js`, import.meta.url));

  it('was built before this suite ran', () => {
    expect(existsSync(dist)).toBe(true);
  });

  it.each(['esm', 'cjs'] as const)('loads with %s and exposes exactly the public names', (mode) => {
    expect(exportedNames(pkg, mode).sort()).toEqual([...names].sort());
  });
});
