package firestoredb_test

import (
	"testing"

	"github.com/roomlease/roomlease/functions/firestoredb"
	"github.com/roomlease/roomlease/functions/presence"
)

// The kill switch is read as stored. A value that is not a string must not
// read as "" (unset, the default, which may be enforce): the store reports
// its type and leaves the meaning to the sweeper.
func TestStore_CleanupModeAsStored(t *testing.T) {
	for name, tc := range map[string]struct {
		doc  map[string]any // nil: no roomlease/config document
		want presence.ModeSetting
	}{
		"NoDocument":   {nil, presence.ModeSetting{}},
		"NoField":      {map[string]any{"note": "x"}, presence.ModeSetting{}},
		"String":       {map[string]any{"cleanupMode": "off"}, presence.ModeSetting{Set: true, Value: "off"}},
		"EmptyString":  {map[string]any{"cleanupMode": ""}, presence.ModeSetting{Set: true}},
		"BooleanFalse": {map[string]any{"cleanupMode": false}, presence.ModeSetting{Set: true, NotString: "bool"}},
		"Integer":      {map[string]any{"cleanupMode": 0}, presence.ModeSetting{Set: true, NotString: "int64"}},
		"Null":         {map[string]any{"cleanupMode": nil}, presence.ModeSetting{Set: true, NotString: "null"}},
		"ShareInteger": {map[string]any{"enforceSharePercent": 10}, presence.ModeSetting{Share: presence.ShareSetting{Set: true, Percent: 10}}},
		"ShareDouble":  {map[string]any{"cleanupMode": "enforce", "enforceSharePercent": 0.5}, presence.ModeSetting{Set: true, Value: "enforce", Share: presence.ShareSetting{Set: true, Percent: 0.5}}},
		"ShareString":  {map[string]any{"enforceSharePercent": "10%"}, presence.ModeSetting{Share: presence.ShareSetting{Set: true, NotNumber: "string"}}},
		"ShareNull":    {map[string]any{"enforceSharePercent": nil}, presence.ModeSetting{Share: presence.ShareSetting{Set: true, NotNumber: "null"}}},
	} {
		t.Run(name, func(t *testing.T) {
			f := MustOpenStore(t)
			if tc.doc != nil {
				if _, err := f.client.Collection(firestoredb.ControlCollection).Doc(firestoredb.ConfigDoc).Set(f.ctx, tc.doc); err != nil {
					t.Fatal(err)
				}
			}
			got, err := f.store.CleanupMode(f.ctx)
			if err != nil || got != tc.want {
				t.Fatalf("CleanupMode = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
