package main

import (
	"context"
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Giving freed heap back to the system after a burst. At serve's GC target
// (gcPercent, 200) the runtime keeps freed pages up to three times the live heap
// for the next allocations, and only collects again once the heap grows or two
// minutes pass: after 1,000 slow readers left, 27-29 MiB of free heap stayed
// resident (docs/performance.md, "Slow readers (issue 36)"). Once the server is
// quiet, holding them buys nothing.
const (
	// memoryCheckEvery is how often serve looks at its heap.
	memoryCheckEvery = 30 * time.Second
	// quietAllocs is what the server may allocate between two checks and still
	// count as quiet: 8.5 MiB a second, a light load, where the runtime collects
	// every few seconds anyway and one more collection in 30 s costs nothing; a
	// list load allocates over 100 MiB a second (8,000 lists a second of 14-20 KB
	// each, docs/performance.md), and is never slowed.
	quietAllocs = 256 << 20
	// freeToReturn is the free heap worth returning: below it, the cost of a
	// collection buys too little. After the figure's readers left, 29 MiB were
	// free, a third of the RSS over the start.
	freeToReturn = 16 << 20
)

// heapSample is what decides whether to return memory.
type heapSample struct {
	allocs uint64 // bytes allocated since the process started
	free   uint64 // heap bytes free and still resident
	live   uint64 // heap bytes live at the last collection
}

// readHeap samples the runtime's heap metrics.
func readHeap() heapSample {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/memory/classes/heap/free:bytes"},
		{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return heapSample{allocs: s[0].Value.Uint64(), free: s[1].Value.Uint64(), live: s[2].Value.Uint64()}
}

// shouldReturn reports whether, from prev to now, the server was quiet and
// holds more free heap than is worth keeping: more than freeToReturn and more
// than its live heap.
func shouldReturn(prev, now heapSample) bool {
	return now.allocs-prev.allocs < quietAllocs && now.free > freeToReturn && now.free > now.live
}

// returnMemory checks the heap every period until ctx ends, and returns the
// free heap to the system (a collection, then all free pages) when shouldReturn.
func returnMemory(ctx context.Context, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	prev := readHeap()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := readHeap()
		if returnStep(prev, now) {
			log.Debug("returned free heap to the system", "free_bytes", now.free, "live_bytes", now.live)
			now = readHeap()
		}
		prev = now
	}
}

// returnStep returns the free heap to the system when shouldReturn, and
// reports whether it did.
func returnStep(prev, now heapSample) bool {
	if !shouldReturn(prev, now) {
		return false
	}
	debug.FreeOSMemory()
	return true
}
