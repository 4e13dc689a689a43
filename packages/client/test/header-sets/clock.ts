/** Whole Unix seconds at or after `now` (ms), as servers write resets. */
export const seconds = (now: number) => Math.ceil(now / 1000);

/** An IMF-fixdate, as Retry-After and Date carry it. */
export const httpDate = (ms: number) => new Date(ms).toUTCString();
