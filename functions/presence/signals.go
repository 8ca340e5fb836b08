package presence

import "time"

// Typing is a best-effort signal at rooms/{roomId}/typing/{uid}. It expires
// by itself at ExpiresAt (server time) and is never replayed: a client that
// reconnects does not resend it, and the sweeper deletes it once expired.
type Typing struct {
	RoomID        string
	ParticipantID string
	DisplayName   string
	ExpiresAt     time.Time
	ExpireAt      time.Time // TTL backstop
}

// TypingPlan is what a typing request writes: the signal, or its removal.
type TypingPlan struct {
	Typing Typing
	Delete bool
}

// PlanTyping decides a typing request at now. Only a session holding the
// current generation and a live lease may signal, so a stale tab cannot make
// a user look busy. Returns EStaleGeneration otherwise.
func (s Settings) PlanTyping(now time.Time, stored *Session, entry *Participant, ref SessionRef, typing bool) (TypingPlan, error) {
	if _, _, err := s.Renew(now, stored, ref); err != nil {
		return TypingPlan{}, err
	}
	if !typing {
		return TypingPlan{Delete: true}, nil
	}
	t := Typing{RoomID: ref.RoomID, ParticipantID: ref.ParticipantID, ExpiresAt: now.Add(s.TypingExpiry)}
	if entry != nil {
		t.DisplayName = entry.DisplayName
	}
	t.ExpireAt = t.ExpiresAt.Add(time.Hour)
	return TypingPlan{Typing: t}, nil
}

// PlanTypingFenced decides a typing request at now of the session a lease
// token describes (claimed; see RenewFenced), for the store's fast path:
// the typing signal and a write of the session conditioned on its being
// unchanged commit together, so claimed stands for a read of it. That
// write renews the lease (a fresh lease of its mode): it is paid for
// anyway, as the fence, and it spares the client a heartbeat.
//
// It reports false when the read path must answer: a typing request it
// would refuse (the read path then gives the refusal on the stored
// session, not on the token's word) or a TTL refresh due.
func (s Settings) PlanTypingFenced(now time.Time, claimed Session, entry *Participant, ref SessionRef, typing bool) (TypingPlan, Session, bool) {
	if s.RefreshDue(now, claimed) {
		return TypingPlan{}, Session{}, false
	}
	plan, err := s.PlanTyping(now, &claimed, entry, ref, typing)
	if err != nil {
		return TypingPlan{}, Session{}, false
	}
	return plan, s.extend(now, claimed), true
}

// Receipt is a participant's read position at rooms/{roomId}/receipts/{uid}.
// It only moves forward.
type Receipt struct {
	RoomID        string
	ParticipantID string
	LastReadSeq   int64
	UpdatedAt     time.Time
	ExpireAt      time.Time
}

// PlanReceipt decides a read receipt at now and reports whether it changes
// anything. Retried and reordered receipts are harmless: the stored position
// is the maximum of all received, and a receipt at or below it writes
// nothing. Returns EForbidden unless the caller is on the roster of the
// room as it stands (room). The position itself was validated with the
// request (ReceiptRequest.Validate).
//
// A receipt last written before the room's current lifetime began belongs
// to a torn-down lifetime whose purge has not reached it yet: it counts as
// absent, so the position is written afresh (and the purge, which spares
// what was written after the teardown, keeps it). Kept, it would answer a
// lower position "not written" and then vanish with the purge. Such a
// receipt is at least an empty-room grace older than the room: the room
// was empty for that long before its teardown.
func (s Settings) PlanReceipt(now time.Time, room *Room, entry *Participant, stored *Receipt, req ReceiptRequest) (Receipt, bool, error) {
	if room == nil || entry == nil {
		return Receipt{}, false, Errorf(EForbidden, "only participants of the room may post read receipts")
	}
	if stored != nil && stored.UpdatedAt.Before(room.CreatedAt) {
		stored = nil
	}
	if stored != nil && stored.LastReadSeq >= req.LastReadSeq {
		return *stored, false, nil
	}
	return Receipt{RoomID: req.RoomID, ParticipantID: req.ParticipantID, LastReadSeq: req.LastReadSeq, UpdatedAt: now,
		ExpireAt: now.Add(s.RecordHorizon)}, true, nil
}

// TypingCandidate is a typing signal a sweeper saw expired.
type TypingCandidate struct {
	RoomID        string
	ParticipantID string
	ExpiresAt     time.Time
}

// TypingExpired decides whether a typing signal a sweeper saw expiring at
// seenExpiry may be removed, given the signal as read now. A signal renewed
// since then (another expiresAt) stays.
func TypingExpired(now time.Time, stored *Typing, seenExpiry time.Time) Outcome {
	switch {
	case stored == nil:
		return AlreadyDone
	case !stored.ExpiresAt.Equal(seenExpiry):
		return Conflict
	case now.Before(stored.ExpiresAt):
		return NotDue
	}
	return Done
}
