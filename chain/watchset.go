package chain

import (
	"container/heap"
	"context"
	"slices"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/watch"
)

// recheckAfter is how long an invoice past its watch horizon but still open (a
// pending payment keeps it so) stays in the set before it is checked again.
const recheckAfter = time.Minute

// watchSet is the watcher's deposit addresses, kept between steps: loaded whole
// once (WatchedAddresses), then brought up to date at every step by the addresses
// locked or requoted since its mark (WatchedAddressesSince, an index range read of
// what changed), and rid of invoices no longer watched when their watch horizon
// (expiry + kassa.WatchAfterExpiry) passes (StillWatched). Its cost a step does not
// grow with the open invoices (docs/performance.md, "Chain watching at size").
type watchSet struct {
	*addressSet
	mark      int64
	byInvoice map[string]string // invoice id: its lower-case address
	due       dueHeap           // when each invoice may stop being watched
	nativeN   int               // addresses quoted in the native coin
	listed    bool              // list is up to date with byAddress
}

// addresses returns the step's address set: the kept one brought up to date, or
// one loaded afresh. It runs after the step read the head, so an address locked
// before a block was mined is in the set that scans the block.
func (w *Watcher) addresses(ctx context.Context) (*addressSet, error) {
	now := w.now()
	if w.set == nil {
		// The mark first: what is locked between the two reads is read again
		// by the next WatchedAddressesSince, which the set takes as an update.
		mark, err := w.Store.QuoteMark(ctx, w.Network.Environment, w.Network.Name)
		if err != nil {
			return nil, err
		}
		all, err := w.Store.WatchedAddresses(ctx, w.Network.Environment, w.Network.Name, now)
		if err != nil {
			return nil, err
		}
		s := &watchSet{addressSet: newAddressSet(nil, w.Tokens, w.Own), mark: mark, byInvoice: make(map[string]string, len(all))}
		s.addressSet.byAddress = make(map[string]watch.Address, len(all))
		for _, a := range all {
			s.put(a)
		}
		w.set = s
	}
	s := w.set
	changed, mark, err := w.Store.WatchedAddressesSince(ctx, w.Network.Environment, w.Network.Name, s.mark, now)
	if err != nil {
		return nil, err
	}
	for _, a := range changed {
		s.put(a)
	}
	s.mark = mark
	if err := w.dropUnwatched(ctx, s, now); err != nil {
		return nil, err
	}
	s.native = s.nativeN > 0
	if !s.listed {
		// The recipients of the log filter while they fit in one (transfers);
		// beyond, any non-empty list stands for "match in memory".
		s.list = s.list[:0]
		for a := range s.byAddress {
			s.list = append(s.list, a)
			if len(s.list) > MaxRecipients {
				break
			}
		}
		slices.Sort(s.list)
		s.listed = true
	}
	return s.addressSet, nil
}

// put adds or replaces a's entry.
func (s *watchSet) put(a watch.Address) {
	key := lower(a.Address)
	if old, ok := s.byAddress[key]; ok {
		s.count(old, -1)
	}
	if prev, ok := s.byInvoice[a.InvoiceID]; ok && prev != key { // not expected: one address an invoice and network
		s.remove(a.InvoiceID)
	}
	if _, ok := s.byAddress[key]; !ok {
		s.listed = false
	}
	s.byAddress[key] = a
	s.byInvoice[a.InvoiceID] = key
	s.count(a, 1)
	heap.Push(&s.due, dueInvoice{at: a.InvoiceExpiresAt.Add(kassa.WatchAfterExpiry), id: a.InvoiceID})
}

func (s *watchSet) count(a watch.Address, d int) {
	if s.nativeTok != nil && a.TokenID == s.nativeTok.ID {
		s.nativeN += d
	}
}

// remove forgets invoice id's address.
func (s *watchSet) remove(id string) {
	key, ok := s.byInvoice[id]
	if !ok {
		return
	}
	s.count(s.byAddress[key], -1)
	delete(s.byAddress, key)
	delete(s.byInvoice, id)
	s.listed = false
}

// dropUnwatched asks the store which invoices past their watch horizon at now are
// still watched, forgets the others, and checks the rest again recheckAfter later.
func (w *Watcher) dropUnwatched(ctx context.Context, s *watchSet, now time.Time) error {
	var ids []string
	seen := map[string]bool{}
	for len(s.due) > 0 && !s.due[0].at.After(now) {
		d := heap.Pop(&s.due).(dueInvoice)
		if _, ok := s.byInvoice[d.id]; ok && !seen[d.id] {
			seen[d.id] = true
			ids = append(ids, d.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	still, err := w.Store.StillWatched(ctx, w.Network.Environment, ids, now)
	if err != nil {
		for _, id := range ids { // asked again at the next step
			heap.Push(&s.due, dueInvoice{at: now, id: id})
		}
		return err
	}
	keep := make(map[string]bool, len(still))
	for _, id := range still {
		keep[id] = true
	}
	for _, id := range ids {
		if keep[id] {
			heap.Push(&s.due, dueInvoice{at: now.Add(recheckAfter), id: id})
		} else {
			s.remove(id)
		}
	}
	return nil
}

// dueInvoice is when invoice id may stop being watched.
type dueInvoice struct {
	at time.Time
	id string
}

// dueHeap is a min-heap of dueInvoice by time.
type dueHeap []dueInvoice

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(dueInvoice)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
