package firestoredb

import (
	"context"
	"time"

	"github.com/roomlease/roomlease/functions/presence"
)

// SetTyping shows (or clears) that ref's participant is typing, for the
// typing expiry. Returns EInvalid for a malformed reference, EForbidden if
// the room's policy no longer admits the user (see admit) and
// EStaleGeneration unless ref holds the current generation and a live lease.
func (s *Store) SetTyping(ctx context.Context, ref presence.SessionRef, typing bool) error {
	if err := ref.Validate(); err != nil {
		return err
	}
	if err := s.admit(ctx, ref.RoomID, ref.ParticipantID); err != nil {
		return err
	}
	signal := s.typing(ref.RoomID, ref.ParticipantID)
	return s.transact(ctx, "typing", func(tx *txn, now time.Time) error {
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
		if plan.Delete {
			return tx.delete(signal)
		}
		return tx.set(signal, typingToRecord(plan.Typing))
	})
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
