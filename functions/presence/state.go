package presence

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// State is what a participant shows besides their name: a status, a
// colour, what they are looking at. It is one JSON object per user in a
// room, on their roster entry, so listeners see it with the roster. The
// last writer among the user's sessions wins: a user is one participant,
// whatever the number of tabs, and a per-tab state would make the roster
// show several.
//
// State is for what changes a few times a minute at most: every change is
// a visible change that every listener reads. It is not for cursors.
type State map[string]any

// MaxStateDepth bounds how deeply a state's objects and arrays nest.
const MaxStateDepth = 8

// MaxStateKeyPath bounds, in UTF-8 bytes, the keys on the way to any
// value in a state joined with dots (arrays add nothing): Firestore
// refuses a field path over 1 500 bytes, counted from the entry's own
// field, so this leaves room for that name and for quoting.
const MaxStateKeyPath = 1024

// MaxStateBytesLimit is the most Settings.MaxStateBytes may be: a state
// travels in a request body of at most 4 KiB with its session and
// generation.
const MaxStateBytesLimit = 3072

// ParseState reads a state from its JSON text. It must be one object, at
// most maxBytes long as compact JSON, nested at most MaxStateDepth deep,
// with no repeated key at any level, no array directly inside an array and
// no key Firestore refuses in a map (see Validate). Numbers become int64
// when they are whole and in range, float64 otherwise; null stays null.
//
// Returns EInvalid for anything else, and ETooLarge for a state over
// maxBytes.
func ParseState(raw []byte, maxBytes int) (State, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseValue(dec, 1, false)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, Errorf(EInvalid, "state must be one JSON object")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, Errorf(EInvalid, "state must be a JSON object")
	}
	st := State(obj)
	if err := st.Validate(); err != nil {
		return nil, err
	}
	if n := st.Size(); n > maxBytes {
		return nil, Errorf(ETooLarge, "state is %d bytes as JSON, more than the %d allowed", n, maxBytes)
	}
	return st, nil
}

// Validate returns EInvalid for a state Firestore would refuse to store
// (it answers InvalidArgument, which would reach the client as a server
// fault): a key that is empty, reserved (of the form __…__) or not UTF-8,
// at any depth, also inside arrays; a string that is not UTF-8; keys on
// the way to a value longer than MaxStateKeyPath; or an array directly
// inside an array. ParseState checks all of it; the stores check it again
// for a state that did not come from ParseState.
func (s State) Validate() error { return validateValue(map[string]any(s), 0, false) }

func validateValue(v any, path int, inArray bool) error {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			switch {
			case k == "":
				return Errorf(EInvalid, "state may not hold an empty key")
			case isReservedKey(k):
				return Errorf(EInvalid, "state may not hold the key %q: keys of the form __…__ are reserved", k)
			case !utf8.ValidString(k):
				return Errorf(EInvalid, "state keys must be UTF-8")
			}
			// The dotted path to e: the keys so far, a dot, this key.
			p := path + len(k)
			if path > 0 {
				p++
			}
			if p > MaxStateKeyPath {
				return Errorf(EInvalid, "state nests keys %d bytes long, more than the %d allowed", p, MaxStateKeyPath)
			}
			if err := validateValue(e, p, false); err != nil {
				return err
			}
		}
	case []any:
		if inArray {
			return Errorf(EInvalid, "state may not hold an array directly inside an array")
		}
		for _, e := range t {
			if err := validateValue(e, path, true); err != nil {
				return err
			}
		}
	case string:
		if !utf8.ValidString(t) {
			return Errorf(EInvalid, "state strings must be UTF-8")
		}
	}
	return nil
}

// isReservedKey reports whether k matches __.*__, which Firestore
// reserves. The emulator lets "____" through; production's rule is the
// expression, so it is refused here either way.
func isReservedKey(k string) bool {
	return len(k) >= 4 && strings.HasPrefix(k, "__") && strings.HasSuffix(k, "__")
}

func parseValue(dec *json.Decoder, depth int, inArray bool) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, Errorf(EInvalid, "state is not valid JSON")
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth > MaxStateDepth {
			return nil, Errorf(EInvalid, "state nests deeper than %d levels", MaxStateDepth)
		}
		if t == '[' {
			if inArray {
				return nil, Errorf(EInvalid, "state may not hold an array directly inside an array")
			}
			out := []any{}
			for dec.More() {
				v, err := parseValue(dec, depth+1, true)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			if _, err := dec.Token(); err != nil { // ]
				return nil, Errorf(EInvalid, "state is not valid JSON")
			}
			return out, nil
		}
		out := map[string]any{}
		for dec.More() {
			k, err := dec.Token()
			key, ok := k.(string)
			if err != nil || !ok {
				return nil, Errorf(EInvalid, "state is not valid JSON")
			}
			if _, dup := out[key]; dup {
				return nil, Errorf(EInvalid, "state repeats the key %q", key)
			}
			if out[key], err = parseValue(dec, depth+1, false); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil { // }
			return nil, Errorf(EInvalid, "state is not valid JSON")
		}
		return out, nil
	case json.Number:
		if i, err := strconv.ParseInt(t.String(), 10, 64); err == nil {
			return i, nil
		}
		f, err := t.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, Errorf(EInvalid, "state holds a number out of range")
		}
		return f, nil
	case string, bool, nil:
		return t, nil
	}
	return nil, Errorf(EInvalid, "state is not valid JSON")
}

// Size is the state's length as compact JSON, keys sorted.
func (s State) Size() int { return len(s.canonical()) }

// Equal reports whether two states show the same: their compact JSON, keys
// sorted, is the same. A nil state equals the empty one.
func (s State) Equal(o State) bool { return bytes.Equal(s.canonical(), o.canonical()) }

func (s State) canonical() []byte {
	if s == nil {
		return []byte("{}")
	}
	b, err := json.Marshal(map[string]any(s))
	if err != nil {
		return nil // cannot happen for a parsed state
	}
	return b
}

// StateRequest replaces the state of ref's user in ref's room.
type StateRequest struct {
	SessionRef
	State State
}

// Validate returns EInvalid for a bad id or generation, or a state
// Firestore would refuse (State.Validate).
func (r StateRequest) Validate() error {
	if err := r.SessionRef.Validate(); err != nil {
		return err
	}
	return r.State.Validate()
}

// StateResult is what a state update answers: the state as stored, and the
// room's revision read after it.
type StateResult struct {
	State    State
	Revision int64
}

// PlanState decides a state update at now: the session must hold the
// current generation and a live lease (as a heartbeat's must), and the
// user's roster entry must exist. It returns the entry to write, and false
// when the state is the one stored already: then nothing is written. It
// never renews the lease: a state update is not a heartbeat.
//
// Returns EStaleGeneration for a session that is gone, superseded or whose
// lease has ended.
func (s Settings) PlanState(now time.Time, stored *Session, entry *Participant, req StateRequest) (Participant, bool, error) {
	switch {
	case stored == nil || entry == nil:
		return Participant{}, false, Errorf(EStaleGeneration, "no such session; join again")
	case stored.Generation != req.Generation:
		return Participant{}, false, Errorf(EStaleGeneration, "the session has generation %d, not %d; join again", stored.Generation, req.Generation)
	case !stored.Live(now):
		return Participant{}, false, Errorf(EStaleGeneration, "the lease ended at %s; join again", stored.LeaseExpiresAt.UTC().Format(time.RFC3339Nano))
	}
	p := *entry
	if p.State.Equal(req.State) {
		return p, false, nil
	}
	p.State = req.State
	p.ExpireAt = now.Add(s.RecordHorizon)
	return p, true, nil
}
