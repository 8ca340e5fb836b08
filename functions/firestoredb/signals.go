package firestoredb

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

// SetTyping shows (or clears) that ref's participant is typing, for the
// typing expiry, and returns the session's grant.
//
// With a valid lease token (ref.Token) it reads the roster entry only (for
// the name the signal shows) and commits the signal with a renewal of the
// session conditioned on the session's being unchanged since the token was
// issued (see fenced.go): the condition is the fence, and the renewal
// spares the client a heartbeat. If the condition fails, or without a
// token, it reads the session and the entry and writes the signal alone,
// as before: the grant then carries the lease as read.
//
// Returns EInvalid for a malformed reference, EForbidden if the room's
// policy no longer admits the user (see admit) and EStaleGeneration unless
// ref holds the current generation and a live lease.
func (s *Store) SetTyping(ctx context.Context, ref presence.SessionRef, typing bool) (presence.Grant, error) {
	if err := ref.Validate(); err != nil {
		return presence.Grant{}, err
	}
	if err := s.admit(ctx, ref.RoomID, ref.ParticipantID); err != nil {
		return presence.Grant{}, err
	}
	if g, ok, err := s.typeFenced(ctx, ref, typing); ok || err != nil {
		return g, err
	}
	signal := s.typing(ref.RoomID, ref.ParticipantID)
	var sess presence.Session
	var read time.Time
	err := s.transact(ctx, "typing", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(s.session(ref.SessionKey), s.participant(ref.RoomID, ref.ParticipantID))
		if err != nil {
			return err
		}
		stored, err := decodeSession(snaps[0])
		if err != nil {
			return err
		}
		entry, err := decodeParticipant(snaps[1], ref.RoomID, ref.ParticipantID)
		if err != nil {
			return err
		}
		plan, err := s.settings.PlanTyping(now, stored, entry, ref, typing)
		if err != nil {
			return err
		}
		sess, read = *stored, snaps[0].UpdateTime
		return s.stageTyping(tx, signal, plan)
	})
	if err != nil {
		return presence.Grant{}, err
	}
	return s.grant(sess, read), nil
}

// typeFenced is SetTyping's fast path. It reports false, having written
// nothing, when the read path must answer.
func (s *Store) typeFenced(ctx context.Context, ref presence.SessionRef, typing bool) (presence.Grant, bool, error) {
	claimed, updated, ok := s.claimed(ref)
	if !ok {
		return presence.Grant{}, false, nil
	}
	signal, sessionRef := s.typing(ref.RoomID, ref.ParticipantID), s.session(ref.SessionKey)
	var renewed presence.Session
	var fenced bool
	var resp firestore.CommitResponse
	err := s.transact(ctx, "typing (fenced)", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(s.participant(ref.RoomID, ref.ParticipantID))
		if err != nil {
			return err
		}
		entry, err := decodeParticipant(snaps[0], ref.RoomID, ref.ParticipantID)
		if err != nil {
			return err
		}
		var plan presence.TypingPlan
		if plan, renewed, fenced = s.settings.PlanTypingFenced(now, claimed, entry, ref, typing); !fenced {
			return nil
		}
		if err := s.stageTyping(tx, signal, plan); err != nil {
			return err
		}
		// The session last: its update time makes the token (writtenAt).
		return tx.update(sessionRef, renewalUpdates(renewed), firestore.LastUpdateTime(updated))
	}, firestore.WithCommitResponseTo(&resp))
	if preconditionFailed(err) {
		return presence.Grant{}, false, nil
	}
	if err != nil || !fenced {
		return presence.Grant{}, false, err
	}
	return s.grant(renewed, writtenAt(&resp)), true, nil
}

// stageTyping stages plan's signal, or its removal, in tx.
func (s *Store) stageTyping(tx *txn, signal *firestore.DocumentRef, plan presence.TypingPlan) error {
	if plan.Delete {
		return tx.delete(signal)
	}
	return tx.set(signal, typingToRecord(plan.Typing))
}

// MarkRead moves req's read position forward and returns the stored
// position, which is never lower than any position received. Returns
// EInvalid for a malformed request and EForbidden unless the participant is
// on the room's roster and still admitted by its policy (see admit).
func (s *Store) MarkRead(ctx context.Context, req presence.ReceiptRequest) (int64, error) {
	if err := req.Validate(); err != nil {
		return 0, err
	}
	if err := s.admit(ctx, req.RoomID, req.ParticipantID); err != nil {
		return 0, err
	}
	receipt := s.receipt(req.RoomID, req.ParticipantID)
	var stored int64
	err := s.transact(ctx, "receipts", func(tx *txn, now time.Time) error {
		snaps, err := tx.getAll(s.participant(req.RoomID, req.ParticipantID), receipt, s.room(req.RoomID))
		if err != nil {
			return err
		}
		entry, err := decodeParticipant(snaps[0], req.RoomID, req.ParticipantID)
		if err != nil {
			return err
		}
		current, err := decodeReceipt(snaps[1])
		if err != nil {
			return err
		}
		// The room tells this lifetime's receipt from one a teardown left
		// for the purge (see presence.Settings.PlanReceipt).
		room, err := decodeRoom(snaps[2], req.RoomID)
		if err != nil {
			return err
		}
		next, write, err := s.settings.PlanReceipt(now, room, entry, current, req)
		if err != nil {
			return err
		}
		stored = next.LastReadSeq
		if !write {
			return nil
		}
		return tx.set(receipt, receiptToRecord(next))
	})
	return stored, err
}
