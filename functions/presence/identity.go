package presence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPhotoURLLength bounds the picture URL a roster entry carries.
const MaxPhotoURLLength = 2048

// Identity is who a verified ID token says the caller is: the uid, and the
// name and picture its issuer vouches for (empty for an anonymous user or
// a token without them).
type Identity struct {
	UID     string
	Name    string
	Picture string
}

// ShownName decides the display name a join shows, given the caller's
// identity and the name the client sent (has says whether it sent one).
//
// A name the token carries is shown whatever the client sends: the token's
// issuer vouches for it, so nobody can show up under another user's name.
// The client's name is used only when the token has none (an anonymous
// user), or when the operator allows client names (allowClient), for apps
// whose users pick a name per room. It returns the name to store and
// whether the join sets one at all.
//
// A token's name is not the caller's input, so it is never refused: it is
// made to fit (see fitName).
func ShownName(who Identity, clientName string, has, allowClient bool) (string, bool) {
	tokenName := fitName(who.Name)
	if tokenName != "" && !allowClient {
		return tokenName, true
	}
	if has {
		return clientName, true
	}
	if tokenName != "" {
		return tokenName, true
	}
	return "", false
}

// fitName makes a name from a token fit what a roster shows: valid UTF-8,
// no control characters, at most MaxDisplayNameLength characters.
func fitName(name string) string {
	name = strings.ToValidUTF8(name, "")
	name = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, name)
	if utf8.RuneCountInString(name) > MaxDisplayNameLength {
		name = string([]rune(name)[:MaxDisplayNameLength])
	}
	return name
}

// ShownPhoto is the picture URL a roster entry carries for who: the
// token's, or none when it has none or one too long to be a real URL.
func ShownPhoto(who Identity) string {
	if len(who.Picture) > MaxPhotoURLLength || !utf8.ValidString(who.Picture) {
		return ""
	}
	return who.Picture
}
