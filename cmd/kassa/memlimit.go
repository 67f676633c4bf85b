package main

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Holding serve's memory under its target. At serve's GC target (gcPercent, 200)
// the heap may grow to three times what the last collection left before the next
// one: a list load spends 10 % less CPU that way, but after 60 s of creates on
// SQLite the process held 107 MiB, over the 100 MiB it is meant to stay under
// (docs/performance.md, "Memory after a create load"). A soft memory limit
// (runtime/debug.SetMemoryLimit) makes the runtime collect sooner only when Go's
// memory nears memoryTarget, so a small live heap keeps most of GOGC 200's gain.
// A fixed limit would make a large live heap (10,000 WebSocket subscribers hold
// over 100 MiB of heap and stacks) collect over and over, so the limit rises with
// the live heap and stacks and never asks for more collections than Go's default
// (GOGC 100) would.
const (
	// memoryTarget is the Go memory (heap, stacks, the runtime's own) serve keeps
	// under while its live heap is small: with the binary's pages (about 39 MiB
	// resident) and SQLite's caches (about 13 MiB), 100 MiB resident in all.
	memoryTarget = 44 << 20
	// runtimeOverhead is the Go memory beside the heap: goroutine stacks, GC
	// metadata and the runtime's own structures (8-10 MiB under load).
	runtimeOverhead = 8 << 20
	// limitEvery is how often the limit follows the live heap: the live heap
	// changes with the connections held, which come and go over seconds.
	limitEvery = time.Second
)

// memoryLimit is the soft memory limit for live bytes of live heap and
// goroutine stacks: memoryTarget, or twice those and the runtime's overhead
// once that is more (where GOGC 100, whose goal counts the stacks too, would
// collect anyway).
func memoryLimit(live uint64) int64 {
	return max(memoryTarget, 2*int64(live)+runtimeOverhead)
}

// liveMemory is the live heap at the last collection and the goroutines'
// stacks: memory the soft limit counts and Go's own goal grows with. A limit
// made of the heap alone sat under what 10,000 payment pages' goroutines hold
// in stacks, and the collector ran without pause: three quarters of the
// server's CPU, 16.7 ms a payment instead of 3-4 (docs/performance.md, "Payment
// pages at 10,000").
func liveMemory() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}

// holdMemory sets the soft memory limit to memoryLimit of the live memory (live)
// every period until ctx ends, then puts back the limit it found. An operator's
// GOMEMLIMIT wins: then it does nothing.
func holdMemory(ctx context.Context, every time.Duration, live func() uint64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	set := int64(-1)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if l := memoryLimit(live()); l != set {
			debug.SetMemoryLimit(l)
			set = l
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
