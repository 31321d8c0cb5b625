// Dates and numbers in the user's own locale (the browser's), never a hard-coded one.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dayOfMonth = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

export function formatDateTime(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

export function formatDate(iso: string | null | undefined): string {
  return iso ? dateOnly.format(new Date(iso)) : '—';
}

/** A UTC calendar day of a report (the revenue trend's points are UTC days). */
export function formatUtcDay(iso: string): string {
  return dayOfMonth.format(new Date(iso));
}

export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : integer.format(n);
}

export function formatNumber(n: number): string {
  return decimal.format(n);
}

export function formatMoney(n: number, currency = 'USD'): string {
  return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(n);
}

export function formatPercent(n: number): string {
  return `${decimal.format(n)} %`;
}

/** A contact's name as the API derived it, with a readable fallback. */
export function contactName(c: {
  displayName: string | null;
  firstName: string | null;
  lastName: string | null;
}): string {
  return c.displayName || [c.firstName, c.lastName].filter(Boolean).join(' ') || 'Unnamed Contact';
}
