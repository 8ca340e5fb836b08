package summarize_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/roomlease/roomlease/functions/summarize"
)

type fakeStore struct {
	mu        sync.Mutex
	lists     int
	refreshes map[string]int
	fail      string
}

func (f *fakeStore) SummarizedRooms(context.Context, int) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists++
	return []string{"a", "b", "c"}, nil
}

func (f *fakeStore) RefreshSummary(_ context.Context, id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refreshes[id]++
	if id == f.fail {
		return false, errors.New("boom")
	}
	return id != "b", nil // b's summary is still current
}

// Every pass refreshes every listed room; the list is read once per
// ListEvery; one room's failure does not keep the others from their
// refresh, and is returned.
func TestSummarizer_Pass(t *testing.T) {
	store := &fakeStore{refreshes: map[string]int{}, fail: "c"}
	z := summarize.New(store, nil, nil)
	for i := range 30 {
		wrote, err := z.Pass(context.Background())
		if wrote != 1 || err == nil {
			t.Fatalf("pass %d: wrote %d, err %v; want 1 written and c's error", i, wrote, err)
		}
	}
	if store.lists != 2 {
		t.Fatalf("the list was read %d times in 30 passes, want 2 (every 15)", store.lists)
	}
	for _, id := range []string{"a", "b", "c"} {
		if store.refreshes[id] != 30 {
			t.Fatalf("%s refreshed %d times in 30 passes", id, store.refreshes[id])
		}
	}
}

// Overlapping Sweep runs on one instance share one summarizer: passes at
// once are safe (run with -race).
func TestSummarizer_ConcurrentPasses(t *testing.T) {
	store := &fakeStore{refreshes: map[string]int{}}
	z := summarize.New(store, nil, nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if _, err := z.Pass(context.Background()); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if store.refreshes["a"] != 40 {
		t.Fatalf("a refreshed %d times in 40 passes", store.refreshes["a"])
	}
}
