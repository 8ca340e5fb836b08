package workload

import (
	"os"
	"syscall"
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

// The group is field 5, counted like utime from the command name's end.
func TestParseStatGroupCPU(t *testing.T) {
	line := "4243 (java) S 1 4100 4100 0 -1 4194560 3000 0 0 0 250 75 0 0 20 0 12 0 100 0 0"
	pgrp, secs, err := parseStatGroupCPU(line)
	if err != nil || pgrp != 4100 || secs != 3.25 {
		t.Fatalf("parseStatGroupCPU = %d, %v, %v; want group 4100, 3.25 s", pgrp, secs, err)
	}
}

// Busy time leaves out idle (field 4) and iowait (field 5).
func TestParseMachineBusy(t *testing.T) {
	got, err := parseMachineBusy("cpu  100 20 30 5000 400 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n")
	if err != nil || got != 1.71 {
		t.Fatalf("parseMachineBusy = %v, %v; want 1.71 s (100+20+30+6+7+8 ticks)", got, err)
	}
	if _, err := parseMachineBusy("intr 1 2 3"); err == nil {
		t.Fatal("a file without the cpu line parsed")
	}
}

// This process's group is among the groups read, and has used some CPU.
func TestCPUByGroup_SeesOwnGroup(t *testing.T) {
	groups, err := CPUByGroup()
	if err != nil {
		t.Fatal(err)
	}
	pgrp := syscall.Getpgrp()
	if groups[pgrp] <= 0 {
		t.Fatalf("own group %d: %v s; want some", pgrp, groups[pgrp])
	}
}
