// Firestore 12's declarations mention Temporal.Instant (Timestamp.fromInstant),
// a TC39 proposal TypeScript 5.9 ships no lib for. An empty stand-in lets the
// check keep skipLibCheck off, so the package's own .d.ts files are checked.
declare namespace Temporal {
  interface Instant {}
}
