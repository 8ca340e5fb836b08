package firestoredb

import (
	"reflect"
	"strings"
	"testing"
)

// TestSchema_FieldsMatchRecords keeps the field-name constants that queries
// and updates use in step with the firestore tags of the records that write
// those fields: a renamed tag would otherwise make a query silently match
// nothing.
func TestSchema_FieldsMatchRecords(t *testing.T) {
	tags := map[string]bool{}
	for _, rec := range []any{roomRecord{}, participantRecord{}, sessionRecord{}, typingRecord{}, receiptRecord{}, closingRecord{}, revisionShardRecord{}, userRoomsRecord{}, departureRecord{}, candidateRecord{}} {
		rt := reflect.TypeOf(rec)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("firestore"), ",")
			tags[name] = true
		}
	}
	for _, field := range []string{FieldExpireAt, FieldLeaseExpiresAt, FieldLeaseShard, FieldExpiryShard, FieldRoomID, FieldExpiresAt, FieldState,
		FieldCleanupAfter, FieldGeneration, FieldEmptySince, FieldUpdatedAt, FieldTeardownReported, FieldChanges, FieldMayBeEmptyAt, FieldRoomExpireAt, FieldEntryExpireAt, FieldPendingCleanup, FieldRevisionExpireAt, FieldDepartedAt, FieldLeftAt, FieldAway, FieldClassifyAfter, FieldClass, FieldClassifiedAt, FieldEntries, FieldEntriesCounted,
		FieldRetired, FieldRoomOpenedAt, FieldChangesCarried, FieldRevisionOnEntries} {
		if !tags[field] {
			t.Errorf("field constant %q is not the firestore tag of any record", field)
		}
	}
}
