package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Client versions. A client names itself and its version in every request,
// "Roomlease-Client: js/0.1.0"; the reply's Roomlease-Client-Support says
// what the server makes of it:
//
//	supported                  served; no minimum for this kind, or at or above it
//	unsupported; minimum=0.2.0 refused with 426 client_too_old: upgrade the client
//	unknown                    served; no header, or one the server cannot read
//
// Clients older than the header send none and are served: the minimum can
// only retire clients that announce themselves. A header the server cannot
// read is served too, because refusing it would turn a typo in a client's
// version string into an outage; the reply says "unknown" so that the
// client's tests can notice. docs/upgrades.md ("Client compatibility")
// has the rule that decides the minimum.
const (
	ClientHeader        = "Roomlease-Client"
	ClientSupportHeader = "Roomlease-Client-Support"

	eClientTooOld = "client_too_old" // 426: the client is older than the minimum for its kind
)

// MinClientVersions is the oldest version served, per client kind ("js",
// "go"). Kinds without an entry are served at any version; the zero value
// serves everyone.
type MinClientVersions map[string]Version

// Version is a semantic version, MAJOR.MINOR.PATCH, with an optional
// pre-release ("0.2.0-rc.1"), which comes before the release.
type Version struct {
	Major, Minor, Patch int
	Pre                 string
}

func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Less reports whether v comes before w. Pre-releases compare as strings,
// which is enough to put any of them before their release.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	if v.Patch != w.Patch {
		return v.Patch < w.Patch
	}
	switch {
	case v.Pre == w.Pre:
		return false
	case v.Pre == "":
		return false
	case w.Pre == "":
		return true
	}
	return v.Pre < w.Pre
}

// ParseVersion reads MAJOR.MINOR.PATCH[-PRE][+BUILD]; build metadata is
// ignored, as semantic versioning says.
func ParseVersion(s string) (Version, error) {
	s, _, _ = strings.Cut(s, "+")
	core, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 || (hasPre && pre == "") {
		return Version{}, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || p == "" || (len(p) > 1 && p[0] == '0') {
			return Version{}, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", s)
		}
		n[i] = v
	}
	return Version{Major: n[0], Minor: n[1], Patch: n[2], Pre: pre}, nil
}

// parseClient reads a Roomlease-Client value, KIND/VERSION.
func parseClient(s string) (kind string, v Version, err error) {
	kind, ver, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || !validKind(kind) {
		return "", Version{}, fmt.Errorf("%q is not KIND/VERSION", s)
	}
	v, err = ParseVersion(ver)
	return kind, v, err
}

// validKind: a short lowercase name such as js, go or react.
func validKind(k string) bool {
	if k == "" || len(k) > 16 || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for _, c := range k {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// ParseMinClientVersions reads ROOMLEASE_MIN_CLIENT_VERSION: comma-separated
// KIND/VERSION entries, at most one per kind; "" sets no minimum.
func ParseMinClientVersions(s string) (MinClientVersions, error) {
	m := MinClientVersions{}
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	for _, entry := range strings.Split(s, ",") {
		kind, v, err := parseClient(entry)
		if err != nil {
			return nil, fmt.Errorf("minimum client version: %w (use KIND/MAJOR.MINOR.PATCH, such as js/0.2.0)", err)
		}
		if _, dup := m[kind]; dup {
			return nil, fmt.Errorf("minimum client version: %s is named twice", kind)
		}
		m[kind] = v
	}
	return m, nil
}

// checkClient answers the client's Roomlease-Client header with
// Roomlease-Client-Support, and refuses a client older than its kind's
// minimum. It reads nothing but the request, so it runs before every gate.
func (h *Handler) checkClient(w http.ResponseWriter, r *http.Request) error {
	header := r.Header.Get(ClientHeader)
	if header == "" {
		w.Header().Set(ClientSupportHeader, "unknown")
		return nil
	}
	kind, v, err := parseClient(header)
	if err != nil {
		w.Header().Set(ClientSupportHeader, "unknown")
		return nil
	}
	min, ok := h.minClients[kind]
	if !ok || !v.Less(min) {
		w.Header().Set(ClientSupportHeader, "supported")
		return nil
	}
	w.Header().Set(ClientSupportHeader, "unsupported; minimum="+min.String())
	return errorf(eClientTooOld, fmt.Sprintf("this server no longer serves %s clients older than %s (this one is %s); upgrade the client", kind, min, v))
}
