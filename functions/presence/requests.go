package presence

// Requests as they reach the stores. Each is validated once, by the store
// method that receives it, before anything is read or written: ids become
// Firestore document paths, so a malformed one must never get that far.

// SessionKey names one session: a participant's tab or app instance in a
// room. The participant id is the verified token's uid, never client input.
type SessionKey struct {
	RoomID        string
	ParticipantID string
	SessionID     string
}

// Validate returns EInvalid unless every id is usable as a document id.
func (k SessionKey) Validate() error {
	if err := ValidateRoomID(k.RoomID); err != nil {
		return err
	}
	if err := ValidateParticipantID(k.ParticipantID); err != nil {
		return err
	}
	return ValidateSessionID(k.SessionID)
}

// JoinRequest asks to join a room with one session.
type JoinRequest struct {
	SessionKey
	// DisplayName is applied when HasDisplayName is set; a join without a
	// name keeps the one on the roster.
	DisplayName    string
	HasDisplayName bool
	// PhotoURL is the picture the caller's token carries (ShownPhoto),
	// empty when it has none; the roster entry always takes it.
	PhotoURL string
	// State, when HasState is set, replaces the user's state (see State);
	// a join without one keeps the state on the roster.
	State    State
	HasState bool
	// Away says the joining session starts away (a page joining while
	// hidden).
	Away bool
	// Allowance is asked, by the store, when the join would make a chosen
	// change (a new state or name, a mode that changes the roster's away):
	// refused, the store plans the join again with Hold.
	Allowance Allowance
	// Hold makes the join keep the stored state, name and, for a session
	// that exists, its mode, when those are all it would change visibly.
	Hold bool
}

// Validate returns EInvalid for a bad id or display name, or a state
// Firestore would refuse (State.Validate).
func (r JoinRequest) Validate() error {
	if err := r.SessionKey.Validate(); err != nil {
		return err
	}
	if err := ValidateDisplayName(r.DisplayName); err != nil {
		return err
	}
	return r.State.Validate()
}

// SessionRef names one session and the generation its holder believes in:
// what heartbeats, leaves and typing signals carry.
type SessionRef struct {
	SessionKey
	Generation int64
	// Token is the lease token the holder was last given (see Grant), or
	// empty. Heartbeats and typing signals that carry a valid one may be
	// fenced by a conditional write instead of a read; it never changes
	// what they are answered.
	Token string
}

// Validate returns EInvalid for a bad id or generation.
func (r SessionRef) Validate() error {
	if err := r.SessionKey.Validate(); err != nil {
		return err
	}
	return ValidateGeneration(r.Generation)
}

// RosterRequest asks for a room's live roster on behalf of one participant.
type RosterRequest struct {
	RoomID   string
	CallerID string
}

// Validate returns EInvalid for a bad room or caller id.
func (r RosterRequest) Validate() error {
	if err := ValidateRoomID(r.RoomID); err != nil {
		return err
	}
	return ValidateParticipantID(r.CallerID)
}

// ReceiptRequest moves a participant's read position in a room forward.
type ReceiptRequest struct {
	RoomID        string
	ParticipantID string
	LastReadSeq   int64
}

// Validate returns EInvalid for a bad id or a position that is negative or
// not exact in JavaScript.
func (r ReceiptRequest) Validate() error {
	if err := ValidateRoomID(r.RoomID); err != nil {
		return err
	}
	if err := ValidateParticipantID(r.ParticipantID); err != nil {
		return err
	}
	if r.LastReadSeq < 0 || r.LastReadSeq > MaxGeneration {
		return Errorf(EInvalid, "lastReadSeq must be an integer between 0 and 2^53-1")
	}
	return nil
}
