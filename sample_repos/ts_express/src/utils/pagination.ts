/** One page of results and what is needed to ask for the next one. */
export interface Page<T> {
  items: T[];
  page: number;
  size: number;
  total: number;
}

/** Slices the items into the requested 1-based page; size is clamped to 1..100. */
export function paginate<T>(items: T[], page: number, size: number): Page<T> {
  const safeSize = clamp(Math.floor(size), 1, 100);
  const safePage = Math.max(1, Math.floor(page));
  const start = (safePage - 1) * safeSize;
  return {
    items: items.slice(start, start + safeSize),
    page: safePage,
    size: safeSize,
    total: items.length,
  };
}

/** Limits a number to the closed range [min, max]. */
export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
