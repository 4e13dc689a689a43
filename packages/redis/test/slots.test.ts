import { describe, expect, it } from 'vitest';
import { groupBySlot } from '../src/slots';

describe('groupBySlot', () => {
  it('keeps keys with one hash tag together and splits the others, in first-seen order', () => {
    const keys = ['fg:ip:{a}', 'fg:user:{b}', 'fg:org:{a}', 'app:fg:ip:{b}'];
    expect(groupBySlot(keys)).toEqual([
      [0, 2],
      [1, 3],
    ]);
  });

  it('gives every key its own group when no two share a slot', () => {
    // {a} is slot 15495, {b} 3300, {c} 7365 (CLUSTER KEYSLOT)
    expect(groupBySlot(['x:{a}', 'x:{b}', 'x:{c}'])).toEqual([[0], [1], [2]]);
  });
});
