package presence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on identifiers. Room and session ids become Firestore document ids,
// so they are kept to a small alphabet that can never form a path ("/"), a
// relative reference ("." or "..") or a reserved id ("__…__").
const (
	MaxIDLength          = 128
	MaxDisplayNameLength = 64 // in characters
	// MaxGeneration keeps generations exact in JavaScript numbers (2^53).
	MaxGeneration = 1<<53 - 1
)

// ValidateRoomID returns EInvalid unless id is a usable room id.
func ValidateRoomID(id string) error { return validateID("roomId", id) }

// ValidateSessionID returns EInvalid unless id is a usable session id.
func ValidateSessionID(id string) error { return validateID("sessionId", id) }

func validateID(field, id string) error {
	switch {
	case id == "":
		return Errorf(EInvalid, "%s is required", field)
	case len(id) > MaxIDLength:
		return Errorf(EInvalid, "%s is longer than %d characters", field, MaxIDLength)
	case id == "." || id == "..":
		return Errorf(EInvalid, "%s may not be %q", field, id)
	case strings.HasPrefix(id, "__") && strings.HasSuffix(id, "__"):
		return Errorf(EInvalid, "%s may not start and end with \"__\"", field)
	}
	for i := 0; i < len(id); i++ {
		if !idByte(id[i]) {
			return Errorf(EInvalid, "%s may contain only letters, digits, '-', '_', '.' and '~'", field)
		}
	}
	return nil
}

func idByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '~'
}

// ValidateParticipantID checks a user id taken from a verified token. Firebase
// allows any string of up to 128 characters as a uid; ids that cannot be a
// document id are refused rather than escaped, so that the roster's document
// id is always the uid itself.
func ValidateParticipantID(id string) error {
	switch {
	case id == "" || len(id) > MaxIDLength || !utf8.ValidString(id):
		return Errorf(EInvalid, "the token's user id cannot be used as a participant id")
	case id == "." || id == ".." || strings.Contains(id, "/"):
		return Errorf(EInvalid, "the token's user id cannot be used as a participant id")
	case strings.HasPrefix(id, "__") && strings.HasSuffix(id, "__"), id == ReservedParticipantID:
		return Errorf(EInvalid, "the token's user id cannot be used as a participant id")
	}
	return nil
}

// ReservedParticipantID is the one id no user may have: the document
// beside a room's departure records that keeps their folded changes
// (firestoredb/fold.go) has it, in the same collection so that listeners
// see a fold's deletions and its count in one snapshot.
const ReservedParticipantID = "~retired"

// ValidateDisplayName accepts printable UTF-8 of at most MaxDisplayNameLength
// characters. The empty name is allowed (the roster shows the id instead).
func ValidateDisplayName(name string) error {
	if !utf8.ValidString(name) {
		return Errorf(EInvalid, "displayName must be valid UTF-8")
	}
	if utf8.RuneCountInString(name) > MaxDisplayNameLength {
		return Errorf(EInvalid, "displayName is longer than %d characters", MaxDisplayNameLength)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return Errorf(EInvalid, "displayName may not contain control characters")
		}
	}
	return nil
}

// ValidateGeneration accepts the generations that joins can issue.
func ValidateGeneration(g int64) error {
	if g <= 0 || g > MaxGeneration {
		return Errorf(EInvalid, "generation must be an integer between 1 and 2^53-1")
	}
	return nil
}
