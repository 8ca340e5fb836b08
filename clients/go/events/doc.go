// Package events is the consumer's side of roomlease's presence events,
// for a Go backend that receives them from a Pub/Sub push subscription
// (docs/events.md, "Delivering to your backend"). Standard library only.
//
//   - DecodePush reads a push request: the JSON envelope Pub/Sub posts,
//     with the CloudEvents attributes (ce-id, ce-type, ce-subject, …) and
//     the base64 data.
//   - PushVerifier checks the push request's OIDC token: a Google-signed
//     RS256 JWT for your endpoint (the audience) and the push
//     subscription's service account (the email).
//   - Deduper drops a redelivered event by its ce-id; MemoryDeduper is one
//     per process.
//   - Handler puts the three in front of your function and answers Pub/Sub
//     (2xx acknowledges; anything else is redelivered with backoff, and
//     after the subscription's maximum attempts dead-lettered).
//
// What it does not do:
//   - It does not order or fold events into a roster: that is
//     clients/go/eventfold's job (Handler's function can feed it).
//   - MemoryDeduper is per process: behind several instances, or across a
//     restart, a duplicate can reach your function. Make the function
//     idempotent, or give Handler a Deduper on your own database
//     (create-if-absent on the ce-id).
//   - Pub/Sub delivers at least once and, with ordering keys, in order
//     per room only while nothing is redelivered; a consumer still orders
//     one participant's events by participantSeq and repairs a gap from a
//     snapshot (docs/events.md, "Reading a roster as a service").
package events
