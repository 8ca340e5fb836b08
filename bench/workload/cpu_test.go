package workload

import (
	"os"
	"testing"
)

// utime and stime are counted from the end of the command name, which may
// hold spaces and parentheses of its own.
func TestParseStatCPU(t *testing.T) {
	line := "4242 (roomlease (dev) x) S 1 4242 4242 0 -1 4194560 3000 0 0 0 250 75 0 0 20 0 12 0 100 0 0"
	got, err := parseStatCPU(line)
	if err != nil || got != 3.25 {
		t.Fatalf("parseStatCPU = %v, %v; want 3.25 s (250 + 75 ticks)", got, err)
	}
	if _, err := parseStatCPU("4242 (x) S 1"); err == nil {
		t.Fatal("a short line parsed")
	}
}

// This process's own counter reads, and only grows.
func TestReadCPUSeconds_OwnProcess(t *testing.T) {
	a, err := ReadCPUSeconds(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	b, err := ReadCPUSeconds(os.Getpid())
	if err != nil || b < a || x == 0 {
		t.Fatalf("CPU went from %v to %v (%v)", a, b, err)
	}
}
