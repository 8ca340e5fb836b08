package firestoredb

import (
	"context"

	"cloud.google.com/go/firestore"

	"github.com/roomlease/roomlease/functions/presence"
)

func (s *Store) typing(roomID, uid string) *firestore.DocumentRef {
	return s.room(roomID).Collection(TypingCollection).Doc(uid)
}

func (s *Store) receipt(roomID, uid string) *firestore.DocumentRef {
	return s.room(roomID).Collection(ReceiptsCollection).Doc(uid)
}

// SetTyping shows (or clears) that ref's participant is typing, for the
// typing expiry. Returns EStaleGeneration unless ref holds the current
// generation and a live lease.
func (s *Store) SetTyping(ctx context.Context, ref presence.SessionRef, typing bool) error {
	if err := ref.Validate(); err != nil {
		return err
	}
	err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		now := s.now()
		snaps, err := s.getAll(tx, s.session(ref.RoomID, ref.ParticipantID, ref.SessionID), s.participant(ref.RoomID, ref.ParticipantID))
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
		s.ops.write(1)
		if plan.Delete {
			return tx.Delete(s.typing(ref.RoomID, ref.ParticipantID))
		}
		return tx.Set(s.typing(ref.RoomID, ref.ParticipantID), typingToRecord(plan.Typing))
	}, firestore.MaxAttempts(maxAttempts))
	return storeError("typing", err)
}

// MarkRead moves uid's read position in roomID forward to seq and returns
// the stored position, which is never lower than any position received.
// Returns EForbidden unless uid is on the room's roster.
func (s *Store) MarkRead(ctx context.Context, roomID, uid string, seq int64) (int64, error) {
	if err := presence.ValidateRoomID(roomID); err != nil {
		return 0, err
	}
	if err := presence.ValidateParticipantID(uid); err != nil {
		return 0, err
	}
	var stored int64
	err := s.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		now := s.now()
		snaps, err := s.getAll(tx, s.participant(roomID, uid), s.receipt(roomID, uid))
		if err != nil {
			return err
		}
		entry, err := decodeParticipant(snaps[0], roomID, uid)
		if err != nil {
			return err
		}
		var current *presence.Receipt
		if rec, err := decode[receiptRecord](snaps[1]); err != nil {
			return err
		} else if rec != nil {
			r := rec.receipt()
			current = &r
		}
		next, write, err := s.settings.PlanReceipt(now, entry, current, roomID, uid, seq)
		if err != nil {
			return err
		}
		stored = next.LastReadSeq
		if !write {
			return nil
		}
		s.ops.write(1)
		return tx.Set(s.receipt(roomID, uid), receiptToRecord(next))
	}, firestore.MaxAttempts(maxAttempts))
	return stored, storeError("receipts", err)
}
