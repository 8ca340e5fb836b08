package firestoredb

import (
	"context"
	"fmt"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/roomlease/roomlease/functions/presence"
)

// The operator's documents under roomlease/: the run-time kill switch and
// the latest sweep summary.

// CleanupMode returns the run-time mode operators set at roomlease/config
// (field cleanupMode), as stored: a value that is not a string is reported
// by its type, never read as "" (which would mean the default).
func (s *Store) CleanupMode(ctx context.Context) (presence.ModeSetting, error) {
	snap, err := s.getDoc(ctx, s.control(ConfigDoc))
	if status.Code(err) == codes.NotFound {
		return presence.ModeSetting{}, nil
	}
	if err != nil {
		return presence.ModeSetting{}, storeError("reading the cleanup mode", err)
	}
	// The enforced share is in the same document: one read per pass.
	share := shareSetting(snap.Data())
	raw, ok := snap.Data()[FieldCleanupMode]
	switch v := raw.(type) {
	case nil:
		if !ok {
			return presence.ModeSetting{Share: share}, nil
		}
		return presence.ModeSetting{Set: true, NotString: "null", Share: share}, nil
	case string:
		return presence.ModeSetting{Set: true, Value: v, Share: share}, nil
	default:
		return presence.ModeSetting{Set: true, NotString: fmt.Sprintf("%T", v), Share: share}, nil
	}
}

// shareSetting reads enforceSharePercent as stored: a number of either
// Firestore type, or the name of the type it is instead.
func shareSetting(data map[string]any) presence.ShareSetting {
	raw, ok := data[FieldEnforceShare]
	switch v := raw.(type) {
	case nil:
		if !ok {
			return presence.ShareSetting{}
		}
		return presence.ShareSetting{Set: true, NotNumber: "null"}
	case int64:
		return presence.ShareSetting{Set: true, Percent: float64(v)}
	case float64:
		return presence.ShareSetting{Set: true, Percent: v}
	default:
		return presence.ShareSetting{Set: true, NotNumber: fmt.Sprintf("%T", v)}
	}
}

// SetEnforceShare writes the run-time enforced share, in percent.
func (s *Store) SetEnforceShare(ctx context.Context, percent float64) error {
	err := s.setDoc(ctx, s.control(ConfigDoc), map[string]any{FieldEnforceShare: percent}, firestore.MergeAll)
	return storeError("setting the enforced share", err)
}

// SetCleanupMode writes the run-time mode (the kill switch).
func (s *Store) SetCleanupMode(ctx context.Context, mode string) error {
	err := s.setDoc(ctx, s.control(ConfigDoc), map[string]any{FieldCleanupMode: mode}, firestore.MergeAll)
	return storeError("setting the cleanup mode", err)
}

// WriteSweepStatus replaces roomlease/sweepStatus with the latest summary.
func (s *Store) WriteSweepStatus(ctx context.Context, summary map[string]any) error {
	return storeError("writing the sweep status", s.setDoc(ctx, s.control(SweepStatusDoc), summary))
}
