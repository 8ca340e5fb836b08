package memo_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/roomlease/roomlease/functions/memo"
)

func TestCache_KeepsAtMostItsSizeDroppingTheOldest(t *testing.T) {
	c := memo.New[int](3)
	for i := range 5 {
		c.Put(fmt.Sprint(i), i)
	}
	if c.Len() != 3 {
		t.Fatalf("Len = %d, want 3", c.Len())
	}
	for _, k := range []string{"0", "1"} {
		if _, ok := c.Get(k); ok {
			t.Errorf("%s is still held; the oldest must go first", k)
		}
	}
	for _, k := range []string{"2", "3", "4"} {
		if v, ok := c.Get(k); !ok || fmt.Sprint(v) != k {
			t.Errorf("Get(%s) = %v, %v", k, v, ok)
		}
	}
}

func TestCache_PutAgainMakesAnEntryTheNewest(t *testing.T) {
	c := memo.New[string](2)
	c.Put("a", "1")
	c.Put("b", "1")
	c.Put("a", "2") // a is now newer than b
	c.Put("c", "1")
	if _, ok := c.Get("b"); ok {
		t.Error("b should have been dropped: it was stored least recently")
	}
	if v, ok := c.Get("a"); !ok || v != "2" {
		t.Errorf("Get(a) = %q, %v; want the value stored last", v, ok)
	}
}

// A lookup that is asked for keeps its answer: Get counts as a use, so a
// busy key outlives keys stored after it but never read.
func TestCache_GetMakesAnEntryTheNewest(t *testing.T) {
	c := memo.New[string](2)
	c.Put("a", "1")
	c.Put("b", "1")
	if _, ok := c.Get("a"); !ok { // a is now used more recently than b
		t.Fatal("a is not held")
	}
	c.Put("c", "1")
	if _, ok := c.Get("b"); ok {
		t.Error("b should have been dropped: it was used least recently")
	}
	if _, ok := c.Get("a"); !ok {
		t.Error("a was dropped, though it was read after b was stored")
	}
}

// Sharing a call among concurrent callers is x/sync/singleflight's, not
// re-tested here; what Once adds is that it stores nothing.
func TestCache_OnceStoresNothingAndPassesErrorsThrough(t *testing.T) {
	c := memo.New[int](10)
	calls := 0
	for range 2 {
		v, err := c.Once("k", func() (int, error) { calls++; return 7, nil })
		if v != 7 || err != nil {
			t.Fatalf("Once = %d, %v", v, err)
		}
	}
	if calls != 2 || c.Len() != 0 {
		t.Errorf("calls = %d, Len = %d; want a call each time and nothing stored", calls, c.Len())
	}
	if _, err := c.Once("k", func() (int, error) { return 0, errors.New("down") }); err == nil {
		t.Error("a failed call must return its error")
	}
}
