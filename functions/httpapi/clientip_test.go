package httpapi

import (
	"net/http/httptest"
	"testing"
)

func TestClientKey(t *testing.T) {
	for name, tc := range map[string]struct {
		remote string
		xff    []string // header lines, in order
		want   string
	}{
		"NoHeader":               {"192.0.2.1:5555", nil, "192.0.2.1"},
		"OneEntry":               {"169.254.1.1:8080", []string{"203.0.113.7"}, "203.0.113.7"},
		"ForgedLeftEntries":      {"169.254.1.1:8080", []string{"1.2.3.4, 10.0.0.1,203.0.113.7"}, "203.0.113.7"},
		"SeveralHeaderLines":     {"169.254.1.1:8080", []string{"1.2.3.4", "5.6.7.8, 203.0.113.7"}, "203.0.113.7"},
		"IPv4InIPv6":             {"169.254.1.1:8080", []string{"::ffff:203.0.113.7"}, "203.0.113.7"},
		"IPv6CountsBy64":         {"169.254.1.1:8080", []string{"2001:db8:1:2:3:4:5:6"}, "2001:db8:1:2::/64"},
		"IPv6WithZone":           {"169.254.1.1:8080", []string{"fe80::1%eth0"}, "fe80::/64"},
		"NotAnAddress":           {"192.0.2.1:5555", []string{"1.2.3.4, unknown"}, "192.0.2.1"},
		"EmptyRightMost":         {"192.0.2.1:5555", []string{"1.2.3.4,"}, "192.0.2.1"},
		"RemoteAddrIPv6":         {"[2001:db8::1]:443", nil, "2001:db8::/64"},
		"NothingUsable":          {"pipe", []string{"x"}, "unknown"},
		"RightMostWithPortIsBad": {"192.0.2.1:5555", []string{"203.0.113.7:1234"}, "192.0.2.1"},
	} {
		t.Run(name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/v1/rooms/x", nil)
			r.RemoteAddr = tc.remote
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := clientKey(r); got != tc.want {
				t.Fatalf("clientKey = %q, want %q", got, tc.want)
			}
		})
	}
}
