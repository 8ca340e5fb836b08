package httpapi

import (
	"net/http"

	"github.com/roomlease/roomlease/functions/httpjson"
	"github.com/roomlease/roomlease/functions/presence"
)

type typingRequest struct {
	SessionID  string `json:"sessionId"`
	Generation int64  `json:"generation"`
	Typing     *bool  `json:"typing"`
	LeaseToken string `json:"leaseToken"`
}

func (h *Handler) typing(w http.ResponseWriter, r *http.Request, roomID string, who presence.Identity) error {
	uid := who.UID
	var body typingRequest
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.Typing == nil {
		return errorf(presence.EInvalid, "typing (true or false) is required")
	}
	ref := presence.SessionRef{SessionKey: presence.SessionKey{RoomID: roomID, ParticipantID: uid, SessionID: body.SessionID},
		Generation: body.Generation, Token: body.LeaseToken}
	g, err := h.store.SetTyping(r.Context(), ref, *body.Typing)
	if err != nil {
		return err
	}
	// A client that sends a token reads the answer (a typing signal so
	// fenced renews the lease); one that does not gets 204, as before.
	if body.LeaseToken == "" {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	httpjson.Write(w, http.StatusOK, leaseAnswerOf(g))
	return nil
}

type receiptRequest struct {
	LastReadSeq *int64 `json:"lastReadSeq"`
}

func (h *Handler) receipts(w http.ResponseWriter, r *http.Request, roomID string, who presence.Identity) error {
	uid := who.UID
	var body receiptRequest
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	if body.LastReadSeq == nil {
		return errorf(presence.EInvalid, "lastReadSeq is required")
	}
	stored, err := h.store.MarkRead(r.Context(), presence.ReceiptRequest{RoomID: roomID, ParticipantID: uid, LastReadSeq: *body.LastReadSeq})
	if err != nil {
		return err
	}
	httpjson.Write(w, http.StatusOK, map[string]int64{"lastReadSeq": stored})
	return nil
}
