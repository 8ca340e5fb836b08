package sweep

import (
	"fmt"
	"math"

	"github.com/roomlease/roomlease/functions/presence"
)

// Mode says how far the sweeper may go.
type Mode string

const (
	// Enforce expires leases and tears down proven-empty rooms.
	Enforce Mode = "enforce"
	// Observe expires leases, runs the authoritative check and reports
	// what it would tear down, with its evidence, but deletes no room.
	Observe Mode = "observe"
	// Off is the kill switch: lease bookkeeping and reporting go on, no
	// room is checked or deleted.
	Off Mode = "off"
)

// ParseMode accepts "enforce", "observe" and "off".
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Enforce, Observe, Off:
		return m, nil
	}
	return "", fmt.Errorf("unknown cleanup mode %q (use enforce, observe or off)", s)
}

// ParseSetting reads an operator's stored mode: only a string that
// ParseMode accepts. Anything else is an error, which the sweeper answers
// with observe.
func ParseSetting(set presence.ModeSetting) (Mode, error) {
	if set.NotString != "" {
		return "", fmt.Errorf("cleanupMode is a %s, not a string (use \"enforce\", \"observe\" or \"off\")", set.NotString)
	}
	return ParseMode(set.Value)
}

// ParseShare reads an enforced share in percent (0 to 100, fractions
// allowed to a hundredth of a percent) as basis points of
// presence.FullShare.
func ParseShare(percent float64) (int, error) {
	if math.IsNaN(percent) || percent < 0 || percent > 100 {
		return 0, fmt.Errorf("enforced share %v%% must be a number from 0 to 100", percent)
	}
	return int(math.Round(percent * presence.FullShare / 100)), nil
}

// ParseShareSetting reads an operator's stored share: only a number that
// ParseShare accepts. Anything else is an error, which the sweeper answers
// with observe, as it does a mode it does not understand.
func ParseShareSetting(set presence.ShareSetting) (int, error) {
	if set.NotNumber != "" {
		return 0, fmt.Errorf("enforceSharePercent is a %s, not a number (use a number from 0 to 100)", set.NotNumber)
	}
	return ParseShare(set.Percent)
}
