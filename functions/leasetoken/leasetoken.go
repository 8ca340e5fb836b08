// Package leasetoken signs and checks lease tokens: what lets a renewal be
// fenced by a conditional write instead of a read (docs/races.md, "Renewals
// fenced without a read").
//
// A token states what the server last wrote to one session document: its
// generation, its lease end, its mode, when its room's and roster entry's
// TTL copies next need a look, and the document's update time after that
// write. The server trusts those claims without reading the document only
// because its write is conditioned on that update time: if anything changed
// the document since (a new generation, a sweep, a departure, an away
// toggle), the write fails and the server reads after all. The signature
// is what stops a client from claiming a lease end it was never given: the
// lease end decides, without a read, whether the lease has already ended.
//
// What it does not guarantee: secrecy (the claims are readable by whoever
// holds the token; none is secret), or freshness beyond the update time: a
// replayed token is refused by the write's condition, not here.
package leasetoken

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// MinKeyBytes is the shortest key a Signer accepts: HMAC-SHA256's own
// block of strength.
const MinKeyBytes = 32

// Claims are what a token says about one session document as the server
// last wrote it.
type Claims struct {
	Generation     int64
	LeaseExpiresAt time.Time
	// UpdateTime is the document's update time after that write: the
	// condition a renewal's write carries.
	UpdateTime time.Time
	Away       bool
	// RefreshAt is the earliest of the session's copies of its room's and
	// roster entry's expireAt: from RefreshWindow before it, a renewal must
	// read them (presence.Settings.RefreshDue), so it takes the read path.
	RefreshAt time.Time
}

// Signer signs and checks tokens with one key. A nil *Signer signs nothing
// and accepts nothing, so a deployment without a key takes the read path.
type Signer struct{ key []byte }

// NewSigner returns a Signer for key, or an error when key is shorter than
// MinKeyBytes.
func NewSigner(key []byte) (*Signer, error) {
	if len(key) < MinKeyBytes {
		return nil, errors.New("a lease token key must be at least 32 bytes")
	}
	return &Signer{key: append([]byte(nil), key...)}, nil
}

// version leads every payload, so that a later format is told apart.
const version = 1

// payloadLen: version, flags, generation, lease end, update time, refresh at.
const payloadLen = 2 + 4*8

// Sign returns a token for doc (the session document's full path, which
// names the project, database, room, user and session) with claims c, or ""
// from a nil Signer. The path is covered by the signature but not carried:
// a token presented for another document fails to verify.
func (s *Signer) Sign(doc string, c Claims) string {
	if s == nil {
		return ""
	}
	p := make([]byte, payloadLen)
	p[0] = version
	if c.Away {
		p[1] = 1
	}
	binary.BigEndian.PutUint64(p[2:], uint64(c.Generation))
	binary.BigEndian.PutUint64(p[10:], uint64(c.LeaseExpiresAt.UnixNano()))
	binary.BigEndian.PutUint64(p[18:], uint64(c.UpdateTime.UnixNano()))
	binary.BigEndian.PutUint64(p[26:], uint64(c.RefreshAt.UnixNano()))
	enc := base64.RawURLEncoding
	return enc.EncodeToString(p) + "." + enc.EncodeToString(s.mac(doc, p))
}

// Verify returns the claims of token if s signed it for doc. It reports
// false for a nil Signer, a malformed token, a token signed with another
// key or for another document.
func (s *Signer) Verify(doc, token string) (Claims, bool) {
	if s == nil || token == "" || len(token) > 128 {
		return Claims{}, false
	}
	body, sig, ok := strings.Cut(token, ".")
	if !ok {
		return Claims{}, false
	}
	enc := base64.RawURLEncoding
	p, err := enc.DecodeString(body)
	if err != nil || len(p) != payloadLen || p[0] != version || p[1] > 1 {
		return Claims{}, false
	}
	got, err := enc.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac(doc, p)) {
		return Claims{}, false
	}
	at := func(i int) time.Time { return time.Unix(0, int64(binary.BigEndian.Uint64(p[i:]))).UTC() }
	return Claims{
		Away:           p[1] == 1,
		Generation:     int64(binary.BigEndian.Uint64(p[2:])),
		LeaseExpiresAt: at(10),
		UpdateTime:     at(18),
		RefreshAt:      at(26),
	}, true
}

// mac binds the payload to the document: the path, its length first so
// that no path and payload can be cut differently to the same bytes.
func (s *Signer) mac(doc string, p []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(doc)))
	m.Write(n[:])
	m.Write([]byte(doc))
	m.Write(p)
	return m.Sum(nil)
}
