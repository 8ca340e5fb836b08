// Package firestoredb is the presence store on Cloud Firestore.
//
// Every mutation is one Firestore transaction that reads the documents a
// decision needs, asks the presence package for the decision with one `now`,
// and writes exactly what the decision returns. Firestore transactions on the
// server side lock what they read, so two requests that touch the same
// session, roster entry or room serialise; one of them retries with fresh
// reads. That is what makes the compare-and-set on generations atomic.
//
// Document layout and field names are in schema.go. A heartbeat reads and
// writes only the session document, which no client listens to.
package firestoredb
