/**
 * A small parser for RFC 9651 Structured Field Lists and Dictionaries, enough for the RateLimit
 * fields: every bare item type is recognised, so a field the server wrote correctly always parses;
 * byte sequences and display strings are kept as their raw text (nothing here needs their bytes).
 * As the RFC requires, any syntax error fails the whole field: the parsers return undefined.
 */

export type BareItem =
  | { type: 'integer' | 'decimal' | 'date'; value: number }
  | { type: 'string' | 'token' | 'bytes' | 'display'; value: string }
  | { type: 'boolean'; value: boolean };

export type Parameters = Map<string, BareItem>;

/** A list or dictionary member: an Item, or an Inner List (`inner` set, `value` undefined). */
export interface Member {
  value?: BareItem;
  inner?: { value: BareItem; params: Parameters }[];
  params: Parameters;
}

class Failure {}
const FAIL = new Failure();

/** Parses a List field (`a;x=1, "b";y=2`), or returns undefined when it is not one. */
export function parseList(text: string): Member[] | undefined {
  const input = new Input(text);
  const members: Member[] = [];
  try {
    if (input.done()) return members;
    for (;;) {
      members.push(input.member());
      if (input.endOfMember()) return members;
    }
  } catch (error) {
    if (error === FAIL) return undefined;
    throw error;
  }
}

/** Parses a Dictionary field (`limit=10, remaining=3`), or returns undefined when it is not one. */
export function parseDictionary(text: string): Map<string, Member> | undefined {
  const input = new Input(text);
  const entries = new Map<string, Member>();
  try {
    if (input.done()) return entries;
    for (;;) {
      const key = input.key();
      if (input.eat('=')) entries.set(key, input.member());
      else entries.set(key, { value: { type: 'boolean', value: true }, params: input.parameters() });
      if (input.endOfMember()) return entries;
    }
  } catch (error) {
    if (error === FAIL) return undefined;
    throw error;
  }
}

const KEY_START = /[a-z*]/;
const KEY_CHAR = /[a-z0-9_\-.*]/;
const TOKEN_START = /[A-Za-z*]/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/;
const BASE64_CHAR = /[A-Za-z0-9+/=]/;
const NUMBER = /^-?(\d{1,12}\.\d{1,3}|\d{1,15})/;

class Input {
  private at = 0;
  private readonly text: string;

  constructor(text: string) {
    // Leading and trailing spaces are discarded; anything outside visible ASCII fails later.
    this.text = text.replace(/^ +| +$/g, '');
  }

  done(): boolean {
    return this.at >= this.text.length;
  }

  private peek(): string {
    return this.text.charAt(this.at);
  }

  eat(char: string): boolean {
    if (this.peek() !== char) return false;
    this.at++;
    return true;
  }

  /** After a member: true at the end, else consumes `OWS "," OWS` (a trailing comma fails). */
  endOfMember(): boolean {
    this.skip(/[ \t]/);
    if (this.done()) return true;
    if (!this.eat(',')) throw FAIL;
    this.skip(/[ \t]/);
    if (this.done()) throw FAIL;
    return false;
  }

  private skip(pattern: RegExp): void {
    while (!this.done() && pattern.test(this.peek())) this.at++;
  }

  member(): Member {
    if (!this.eat('(')) {
      const value = this.bareItem();
      return { value, params: this.parameters() };
    }
    const inner: { value: BareItem; params: Parameters }[] = [];
    for (;;) {
      this.skip(/ /);
      if (this.eat(')')) return { inner, params: this.parameters() };
      const value = this.bareItem();
      inner.push({ value, params: this.parameters() });
      if (this.peek() !== ' ' && this.peek() !== ')') throw FAIL;
    }
  }

  parameters(): Parameters {
    const params: Parameters = new Map();
    while (this.eat(';')) {
      this.skip(/ /);
      const key = this.key();
      params.set(key, this.eat('=') ? this.bareItem() : { type: 'boolean', value: true });
    }
    return params;
  }

  key(): string {
    if (!KEY_START.test(this.peek())) throw FAIL;
    return this.run(KEY_CHAR);
  }

  private run(pattern: RegExp): string {
    const start = this.at;
    this.at++;
    this.skip(pattern);
    return this.text.slice(start, this.at);
  }

  private bareItem(): BareItem {
    const char = this.peek();
    if (char === '-' || (char >= '0' && char <= '9')) return this.number();
    if (char === '"') return { type: 'string', value: this.string() };
    if (TOKEN_START.test(char)) return { type: 'token', value: this.run(TOKEN_CHAR) };
    this.at++;
    if (char === ':') return { type: 'bytes', value: this.bytes() };
    if (char === '?') return this.boolean();
    if (char === '@') return { type: 'date', value: this.integer() };
    if (char === '%' && this.eat('"')) return { type: 'display', value: this.display() };
    throw FAIL;
  }

  private number(): BareItem {
    const match = NUMBER.exec(this.text.slice(this.at));
    if (!match) throw FAIL;
    const raw = match[0];
    this.at += raw.length;
    // "1." and a 16th integer digit are errors, not a shorter number followed by garbage.
    if (this.peek() === '.' || (this.peek() >= '0' && this.peek() <= '9')) throw FAIL;
    return { type: raw.includes('.') ? 'decimal' : 'integer', value: Number(raw) };
  }

  private integer(): number {
    const item = this.number();
    if (item.type !== 'integer') throw FAIL;
    return item.value;
  }

  private string(): string {
    let value = '';
    for (this.at++; !this.done(); this.at++) {
      const char = this.peek();
      if (char === '"') {
        this.at++;
        return value;
      }
      if (char === '\\') {
        this.at++;
        if (this.peek() !== '"' && this.peek() !== '\\') throw FAIL;
        value += this.peek();
      } else if (char < ' ' || char > '~') {
        throw FAIL;
      } else {
        value += char;
      }
    }
    throw FAIL;
  }

  private until(end: string, allowed: RegExp): string {
    const start = this.at;
    while (!this.done() && this.peek() !== end) {
      if (!allowed.test(this.peek())) throw FAIL;
      this.at++;
    }
    if (!this.eat(end)) throw FAIL;
    return this.text.slice(start, this.at - 1);
  }

  /**
   * The base64 text between colons. It must decode (RFC 9651 4.2.7), as atob's forgiving-base64
   * would: padding only to a multiple of 4, and never one lone character in the last group.
   */
  private bytes(): string {
    const value = this.until(':', BASE64_CHAR);
    const data = value.length % 4 === 0 ? value.replace(/={1,2}$/, '') : value;
    if (data.includes('=') || data.length % 4 === 1) throw FAIL;
    return value;
  }

  /** The text between `%"` and `"`; each `%` must start a lowercase hex pair (the bytes are not decoded). */
  private display(): string {
    const value = this.until('"', /[\x20-\x21\x23-\x7e]/);
    if (/%(?![0-9a-f]{2})/.test(value)) throw FAIL;
    return value;
  }

  private boolean(): BareItem {
    const char = this.peek();
    if (char !== '0' && char !== '1') throw FAIL;
    this.at++;
    return { type: 'boolean', value: char === '1' };
  }
}
