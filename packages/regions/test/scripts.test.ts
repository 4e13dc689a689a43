import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { giveBackScript, poolScript, timeScript } from '../src/scripts';

describe('the Lua scripts', () => {
  it.each([
    ['pool', poolScript],
    ['give-back', giveBackScript],
    ['time', timeScript],
  ])("%s script: the SHA-1 written out is its source's (EVALSHA would always miss otherwise)", (_name, script) => {
    expect(script.sha1).toBe(createHash('sha1').update(script.source).digest('hex'));
  });
});
