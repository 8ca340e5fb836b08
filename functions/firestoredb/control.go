package firestoredb

import (
	"context"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The operator's documents under roomlease/: the run-time kill switch and
// the latest sweep summary.

// CleanupMode returns the run-time mode operators set at roomlease/config
// (field cleanupMode), or "" when none is set.
func (s *Store) CleanupMode(ctx context.Context) (string, error) {
	snap, err := s.getDoc(ctx, s.control(ConfigDoc))
	if status.Code(err) == codes.NotFound {
		return "", nil
	}
	if err != nil {
		return "", storeError("reading the cleanup mode", err)
	}
	mode, _ := snap.Data()[FieldCleanupMode].(string)
	return mode, nil
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
