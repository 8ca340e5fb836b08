package client

// Version is this client's version. Every request names it in the
// Roomlease-Client header ("go/0.1.0"), and the server's reply says whether
// it still serves it: a client older than the deployment's minimum gets 426,
// ErrClientTooOld (docs/upgrades.md, "Client compatibility"). Raise it
// with each release of the client, as CHANGELOG.md records.
const Version = "0.1.0"
