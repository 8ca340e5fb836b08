// Timestamps as they arrive: Firestore Timestamps, Dates, RFC 3339 strings.

/** @returns {Date | null} */
export function toDate(v) {
  if (!v) return null;
  if (typeof v.toDate === 'function') return v.toDate();
  if (v instanceof Date) return v;
  const t = Date.parse(v);
  return Number.isFinite(t) ? new Date(t) : null;
}
