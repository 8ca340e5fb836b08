package httpapi_test

import (
	"sort"
	"testing"

	"github.com/roomlease/roomlease/internal/emulatortest"
)

// A participant pages through the whole roster, in user id order, each
// page at a revision; the pages together list everyone once.
func TestAPI_RosterPages(t *testing.T) {
	f := MustOpenAPI(t)
	var users []emulatortest.User
	for range 5 {
		u := emulatortest.SignUp(t)
		if r := f.do(t, "POST", "/v1/rooms/paged/join", u.IDToken, `{"sessionId":"tab"}`); r.status != 200 {
			t.Fatalf("join: %d %s", r.status, r.raw)
		}
		users = append(users, u)
	}
	var seen []string
	token := ""
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatalf("more than 3 pages of 2 for 5 participants: %v", seen)
		}
		path := "/v1/rooms/paged/participants?pageSize=2"
		if token != "" {
			path += "&pageToken=" + token
		}
		r := f.do(t, "GET", path, users[0].IDToken, "")
		if r.status != 200 || r.body["revision"] != 5.0 {
			t.Fatalf("page %d: %d %s", pages, r.status, r.raw)
		}
		for _, p := range r.body["participants"].([]any) {
			seen = append(seen, p.(map[string]any)["participantId"].(string))
		}
		next, _ := r.body["nextPageToken"].(string)
		if next == "" {
			break
		}
		token = next
	}
	want := make([]string, 0, len(users))
	for _, u := range users {
		want = append(want, u.UID)
	}
	sort.Strings(want)
	if len(seen) != len(want) || !sort.StringsAreSorted(seen) {
		t.Fatalf("pages listed %v, want %v in order", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("pages listed %v, want %v", seen, want)
		}
	}
	for _, bad := range []string{"pageSize=0x", "pageSize=501", "pageSize=-1", "pageToken=a/b"} {
		if r := f.do(t, "GET", "/v1/rooms/paged/participants?"+bad, users[0].IDToken, ""); r.status != 400 || errCode(r) != "invalid_argument" {
			t.Fatalf("%s: %d %s, want 400 invalid_argument", bad, r.status, r.raw)
		}
	}
}
