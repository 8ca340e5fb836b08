package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientKey is the key the per-address limit counts a request under: the
// client's address as Google's front end saw it.
//
// On Cloud Run that is the right-most entry of X-Forwarded-For: the front
// end sets or appends the address that connected to it, and everything to
// its left is whatever the client sent, so taking the left-most entry, the
// usual "client IP", would let a client choose its own key. The
// connection's own address (RemoteAddr) is Google's proxy there, shared by
// everyone; it is used only without the header (a local run), or when the
// right-most entry is not an address. Behind a load balancer of your own
// the right-most entry is the balancer's (docs/abuse.md).
//
// An IPv6 address counts by its /64: one subscriber usually holds a whole
// /64, so counting single addresses would let a client multiply its
// allowance by 2^64.
func clientKey(r *http.Request) string {
	if values := r.Header.Values("X-Forwarded-For"); len(values) > 0 {
		last := values[len(values)-1]
		if i := strings.LastIndexByte(last, ','); i >= 0 {
			last = last[i+1:]
		}
		if key, ok := addressKey(strings.TrimSpace(last)); ok {
			return key
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if key, ok := addressKey(host); ok {
		return key
	}
	return "unknown"
}

func addressKey(s string) (string, bool) {
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return "", false
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is4() {
		return ip.String(), true
	}
	p, err := ip.Prefix(64)
	if err != nil {
		return "", false
	}
	return p.String(), true
}
