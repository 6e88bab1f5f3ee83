/** Formats an amount in cents as dollars, e.g. 1999 -> "$19.99" (or "1999" -> "$19.99"). */
export function formatMoney(cents: number): string;
export function formatMoney(cents: string): string;
export function formatMoney(cents: number | string): string {
  const value = typeof cents === 'string' ? Number(cents) : cents;
  const sign = value < 0 ? '-' : '';
  return `${sign}$${(Math.abs(value) / 100).toFixed(2)}`;
}
