import { describe, expect, it } from 'vitest';
import { buildProblem, negotiateProblem } from '@floodgate/core/http';
import { decision, layer } from './decisions';

const limited = decision('user', [
  layer({ rule: 'ip', allowed: false, remaining: 0, retryAfter: 1_000 }),
  layer({ rule: 'user', allowed: false, remaining: 0, retryAfter: 29_001 }),
  layer({ rule: 'apiKey' }),
]);
const unavailable = decision(undefined, [], { allowed: false, retryAfter: 1, unavailable: true });

const quotaExceeded = {
  type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
  title: 'Too Many Requests',
  status: 429,
  detail: 'Too many requests; try again in 30 seconds.',
  retryAfter: 30,
  'violated-policies': ['ip', 'user'],
};

describe('buildProblem', () => {
  it('describes a 429 with the layers that denied', () => {
    expect(buildProblem(limited)).toEqual(quotaExceeded);
  });

  it('carries the status the app chose instead of 429 (statusCode option)', () => {
    expect(buildProblem(limited, 403)).toEqual({ ...quotaExceeded, status: 403 });
    expect(negotiateProblem(undefined, limited, 403).status).toBe(403);
  });

  it('describes a 503 when the store was unavailable', () => {
    expect(buildProblem(unavailable)).toEqual({
      type: 'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity',
      title: 'Service Unavailable',
      status: 503,
      detail: 'The service cannot accept requests right now; try again in 1 second.',
      retryAfter: 1,
      'violated-policies': [],
    });
  });
});

describe('negotiateProblem', () => {
  const json = { status: 429, contentType: 'application/problem+json', body: JSON.stringify(quotaExceeded) };
  const text = {
    status: 429,
    contentType: 'text/plain; charset=utf-8',
    body: 'Too many requests; try again in 30 seconds.',
  };

  it.each([
    [undefined, json],
    ['', json],
    ['application/problem+json', json],
    ['APPLICATION/JSON', json],
    ['application/*', json],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', json],
    ['application/problem+json;q=0, application/json', json],
    ['application/json;q=0, */*', json],
    ['text/html', text],
    ['text/plain, application/json;q=0', text],
    ['*/*;q=0', text],
    ['application/json;q=0, application/*;q=1', json],
    ['application/json;q=0, application/problem+json;q=0, application/*', text],
  ])('Accept %j', (accept, expected) => {
    const response = negotiateProblem(accept, limited);
    expect(response).toEqual(expected);
    if (response.contentType === 'application/problem+json') expect(JSON.parse(response.body)).toEqual(quotaExceeded);
  });

  it('answers 503 for an unavailable store, in either form', () => {
    expect(negotiateProblem('text/plain', unavailable)).toEqual({
      status: 503,
      contentType: 'text/plain; charset=utf-8',
      body: 'The service cannot accept requests right now; try again in 1 second.',
    });
    expect(negotiateProblem(undefined, unavailable)).toMatchObject({
      status: 503,
      contentType: 'application/problem+json',
    });
  });

  it('a body reused from the last 429 is only ever the body this decision would get', () => {
    const denied = (rules: string[], retryAfter: number) =>
      decision(
        rules[0],
        rules.map((rule) => layer({ rule, allowed: false, remaining: 0, retryAfter })),
      );
    // Each differs from the one before in one thing the body shows; two split a name differently.
    const sequence = [
      denied(['a|1:b'], 5_000),
      denied(['a|b'], 5_000),
      denied(['a', 'b'], 5_000),
      denied(['a', 'b'], 5_000),
      denied(['a', 'b'], 6_000),
      denied(['a'], 6_000),
      denied(['a'], 0),
      decision('a', [
        layer({ rule: 'a', allowed: false, remaining: 0, retryAfter: 6_000 }),
        layer({ rule: 'b', allowed: false, shadow: true, retryAfter: 6_000 }),
      ]),
    ];
    for (const status of [429, 403]) {
      for (const [i, each] of sequence.entries()) {
        expect(JSON.parse(negotiateProblem(undefined, each, status).body), `${status}, decision ${i}`).toEqual(
          buildProblem(each, status),
        );
      }
    }
  });
});
