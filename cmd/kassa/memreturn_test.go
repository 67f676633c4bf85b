package main

import (
	"runtime"
	"testing"
)

// TestShouldReturn: free heap goes back only when the server was quiet since
// the last check and the free heap is large, in itself and beside the live one.
func TestShouldReturn(t *testing.T) {
	for _, tt := range []struct {
		name      string
		allocated uint64 // between the checks
		free      uint64
		live      uint64
		want      bool
	}{
		{"quiet after a burst", 10 * mib, 60 * mib, 20 * mib, true},
		{"under load", 500 * mib, 60 * mib, 20 * mib, false},
		{"little free", 10 * mib, 12 * mib, 5 * mib, false},
		{"free below live", 10 * mib, 60 * mib, 80 * mib, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			prev := heapSample{allocs: 1000 * mib}
			now := heapSample{allocs: prev.allocs + tt.allocated, free: tt.free, live: tt.live}
			if got := shouldReturn(prev, now); got != tt.want {
				t.Errorf("shouldReturn = %v, want %v", got, tt.want)
			}
		})
	}
}

// burst is where TestReturnMemory's burst lives, so the compiler keeps it.
var burst [][]byte

// TestReturnMemory: after a burst of allocations is freed, the process holds it
// as free heap, and one check of a quiet process gives it back to the system.
func TestReturnMemory(t *testing.T) {
	for range 128 {
		burst = append(burst, make([]byte, 1<<20))
	}
	burst = nil
	runtime.GC()
	prev := readHeap()
	now := readHeap()
	if !shouldReturn(prev, now) {
		t.Fatalf("after a freed burst of 128 MiB: free %d MiB, live %d MiB; not worth returning?", now.free>>20, now.live>>20)
	}
	returnStep(prev, now)
	if after := readHeap(); after.free > freeToReturn {
		t.Fatalf("free heap still resident after the check: %d MiB", after.free>>20)
	}
}
