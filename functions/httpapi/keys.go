package httpapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/roomlease/roomlease/functions/presence"
)

// checkKeys reads the body's tokens before encoding/json decodes it, for
// what encoding/json does not check: the body is one object (not null, not
// an array); no object in it names a key twice (encoding/json lets the last
// win, so two parts of a stack could each read a different one); and each
// top-level key is one of fields exactly (encoding/json would match
// "SessionID" to sessionId). Syntax errors are left to the decoder, which
// explains them better.
func checkKeys(body []byte, fields []string) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		if err != nil {
			return nil
		}
		return errorf(presence.EInvalid, "the body must be a JSON object")
	}
	// One frame per open object or array; keys is nil in an array.
	type frame struct {
		keys    map[string]bool
		wantKey bool
	}
	stack := []frame{{keys: map[string]bool{}, wantKey: true}}
	// valueDone: the value of the innermost object's last key has ended.
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].wantKey = true
		}
	}
	for len(stack) > 0 {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		top := &stack[len(stack)-1]
		if top.keys != nil && top.wantKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				valueDone()
				continue
			}
			key, _ := tok.(string) // in an object, Token returns keys as strings
			if top.keys[key] {
				return errorf(presence.EInvalid, "field "+quote(key)+" appears more than once")
			}
			if len(stack) == 1 && !slices.Contains(fields, key) {
				return unknownField(key, fields)
			}
			top.keys[key], top.wantKey = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
	return nil
}

func unknownField(key string, fields []string) error {
	for _, f := range fields {
		if strings.EqualFold(f, key) {
			return errorf(presence.EInvalid, "unknown field "+quote(key)+"; keys are case-sensitive: "+quote(f))
		}
	}
	return errorf(presence.EInvalid, "unknown field "+quote(key))
}

// quote quotes a client's key for a message, shortened: it is the client's
// own text, but a message need not repeat 4 KiB of it.
func quote(key string) string {
	if len(key) > 64 {
		key = key[:64] + "…"
	}
	b, _ := json.Marshal(key)
	return string(b)
}

// jsonFields lists the JSON names of the fields of the struct dst points
// to, as encoding/json names them.
func jsonFields(dst any) []string {
	t := reflect.TypeOf(dst)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}
