import { readFileSync, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { limitsPublisher } from '@floodgate/core';
import { rulesFromText } from './document-text';
import type { LimitsFeed } from '@floodgate/core';
import type { FSWatcher } from 'node:fs';
import type { SourceOptions } from './document-text';

export interface FileLimitsOptions<Req = unknown> extends SourceOptions<Req> {
  /** Reload when the file changes (fs.watch on its folder, so a file replaced by rename is seen). Default false. */
  watch?: boolean;
}

/** A limits document read from a file: give it as `limits` to createLimiter or any adapter. */
export interface FileLimits<Req = unknown> extends LimitsFeed<Req> {
  /** The file, as an absolute path. */
  readonly path: string;
  /**
   * Reads the file now. Resolves true when it held new valid rules, which every limiter following
   * this source uses from its next request on; false when it was unchanged, unreadable or invalid
   * (those two reported to each limiter's onWarning, the running rules kept).
   */
  reload(): Promise<boolean>;
  /** Stops watching. */
  close(): void;
}

/**
 * Limits from a JSON file. The first read is synchronous and throws a coded error when the file is
 * missing or invalid, so an app never starts without its limits. With `watch: true`, each change
 * that validates replaces the rules on the next request; one that does not keeps the running rules.
 *
 * @example
 * app.use(rateLimit({ limits: limitsFromFile('./limits.json', { watch: true }) }));
 */
export function limitsFromFile<Req = unknown>(path: string, options: FileLimitsOptions<Req> = {}): FileLimits<Req> {
  const { watch: watching = false, ...documentOptions } = options;
  const file = resolve(path);
  const source = `limits file ${file}`;
  let text = readFileSync(file, 'utf8');
  const feed = limitsPublisher(rulesFromText(text, source, documentOptions));
  // Reads one after another, so the last change is the one that stays.
  let queue: Promise<boolean> = Promise.resolve(false);
  const readNow = async (): Promise<boolean> => {
    let next: string;
    try {
      next = await readFile(file, 'utf8');
    } catch (error) {
      feed.fail(new Error(`${source} could not be read: ${(error as Error).message}`));
      return false;
    }
    if (next === text) return false;
    text = next;
    try {
      feed.publish(rulesFromText(next, source, documentOptions));
      return true;
    } catch (error) {
      feed.fail(error);
      return false;
    }
  };
  const reload = () => {
    queue = queue.then(readNow);
    return queue;
  };
  let watcher: FSWatcher | undefined;
  if (watching) {
    const name = basename(file);
    watcher = watch(dirname(file), { persistent: false }, (_event, changed) => {
      if (changed === null || changed === name) void reload();
    });
    watcher.on('error', (error) => feed.fail(error));
  }
  return {
    path: file,
    get rules() {
      return feed.rules;
    },
    subscribe: feed.subscribe,
    reload,
    close: () => watcher?.close(),
  };
}
