import { describe, it } from 'vitest';
import { ALGORITHM_KINDS } from '../redis/fixtures/algorithms.ts';
import { useRedis } from '../redis/fixtures/suite.ts';
import { CLIENT_FAMILIES } from '../redis/fixtures/families.ts';
import { useFamilyClient } from '../redis/fixtures/family-suite.ts';
import { expectTraceAgrees } from './agree.ts';

const OPERATIONS = 10_000;
/** The other client families run the same traces, shorter: the Lua is the same, the wire path is theirs. */
const FAMILY_OPERATIONS = 2_000;

const suite = useRedis({ enableAutoPipelining: true });
const clients = Object.fromEntries(
  CLIENT_FAMILIES.map((family) => [
    family,
    useFamilyClient(
      family,
      () => suite.url,
      () => suite.client,
    ),
  ]),
);
const CASES = CLIENT_FAMILIES.flatMap((family) => ALGORITHM_KINDS.map((kind) => [kind, family] as const));

describe.each(CASES)('%s: TypeScript (MemoryStore) and Lua (RedisStore over %s) agree', (kind, family) => {
  const operationsOf = family === 'ioredis' ? OPERATIONS : FAMILY_OPERATIONS;
  it(`on ${operationsOf} random operations over several keys, field by field`, async () => {
    await expectTraceAgrees(kind, clients[family]?.client ?? suite.client, family, operationsOf);
  });
});
