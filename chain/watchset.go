package chain

import (
	"context"
	"math/big"
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
// grow with the open invoices, and it holds no pointers per address (maps and a
// slice of values: watched, invoiceKey, dueInvoice), so the garbage collector does
// not read it (docs/performance.md, "Chain watching at size").
type watchSet struct {
	*addressSet
	mark      int64
	byInvoice map[invoiceKey]addrKey // invoice: its address
	due       dueHeap                // when each invoice may stop being watched
	nativeN   int                    // addresses quoted in the native coin
	listed    bool                   // list is up to date with byAddress
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
		s := &watchSet{addressSet: newAddressSet(nil, w.Tokens, w.Own), mark: mark, byInvoice: make(map[invoiceKey]addrKey, len(all))}
		s.addressSet.byAddress = make(map[addrKey]watched, len(all))
		s.due = make(dueHeap, 0, len(all))
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
		// beyond, the log query names none and transfers are matched in memory.
		s.list = s.list[:0]
		if len(s.byAddress) <= MaxRecipients {
			for a := range s.byAddress {
				s.list = append(s.list, addrString(a))
			}
			slices.Sort(s.list)
		}
		s.listed = true
	}
	return s.addressSet, nil
}

// put adds or replaces a's entry. An address it cannot read (the store holds
// EIP-55 addresses only) is left out.
func (s *watchSet) put(a watch.Address) {
	key, ok := parseAddr(a.Address)
	if !ok {
		return
	}
	inv := s.ids.key(a.InvoiceID)
	if prev, ok := s.byInvoice[inv]; ok && prev != key { // not expected: one address an invoice and network
		s.count(s.byAddress[prev], -1)
		delete(s.byAddress, prev)
		delete(s.bigRates, prev)
	}
	if old, ok := s.byAddress[key]; ok {
		s.count(old, -1)
		if old.invoice != inv { // not expected either: the address is the new invoice's alone
			delete(s.byInvoice, old.invoice)
			s.ids.forget(old.invoice)
		}
	} else {
		s.listed = false
	}
	e := s.entry(key, inv, a)
	s.byAddress[key] = e
	s.byInvoice[inv] = key
	s.count(e, 1)
	s.due.push(dueInvoice{at: a.InvoiceExpiresAt.Add(kassa.WatchAfterExpiry).UnixMicro(), invoice: inv})
}

func (s *watchSet) count(e watched, d int) {
	if s.nativeTok != nil && e.token == s.nativeTok.ID {
		s.nativeN += d
	}
}

// remove forgets invoice inv's address.
func (s *watchSet) remove(inv invoiceKey) {
	key, ok := s.byInvoice[inv]
	if !ok {
		return
	}
	s.count(s.byAddress[key], -1)
	delete(s.byAddress, key)
	delete(s.bigRates, key)
	delete(s.byInvoice, inv)
	s.ids.forget(inv)
	s.listed = false
}

// dropUnwatched asks the store which invoices past their watch horizon at now are
// still watched, forgets the others, and checks the rest again recheckAfter later.
func (w *Watcher) dropUnwatched(ctx context.Context, s *watchSet, now time.Time) error {
	at := now.UnixMicro()
	var (
		ids  []string
		keys = map[string]invoiceKey{}
	)
	for len(s.due) > 0 && s.due[0].at <= at {
		d := s.due.pop()
		if _, ok := s.byInvoice[d.invoice]; !ok {
			continue
		}
		id := s.ids.id(d.invoice)
		if _, seen := keys[id]; !seen {
			keys[id] = d.invoice
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	still, err := w.Store.StillWatched(ctx, w.Network.Environment, ids, now)
	if err != nil {
		for _, id := range ids { // asked again at the next step
			s.due.push(dueInvoice{at: at, invoice: keys[id]})
		}
		return err
	}
	keep := make(map[string]bool, len(still))
	for _, id := range still {
		keep[id] = true
	}
	for _, id := range ids {
		if keep[id] {
			s.due.push(dueInvoice{at: now.Add(recheckAfter).UnixMicro(), invoice: keys[id]})
		} else {
			s.remove(keys[id])
		}
	}
	return nil
}

// dueInvoice is when (Unix microseconds) invoice may stop being watched.
type dueInvoice struct {
	at      int64
	invoice invoiceKey
}

// dueHeap is a min-heap of dueInvoice by time, of values (container/heap would
// box each one pushed).
type dueHeap []dueInvoice

func (h *dueHeap) push(d dueInvoice) {
	*h = append(*h, d)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].at <= s[i].at {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *dueHeap) pop() dueInvoice {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < n && s[l].at < s[m].at {
			m = l
		}
		if r < n && s[r].at < s[m].at {
			m = r
		}
		if m == i {
			break
		}
		s[m], s[i] = s[i], s[m]
		i = m
	}
	*h = s
	return top
}

// addrKey is an address's 20 bytes.
type addrKey [20]byte

// parseAddr reads a 0x-prefixed address of 40 hexadecimal digits in either case.
func parseAddr(s string) (addrKey, bool) {
	var k addrKey
	if len(s) != 42 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return k, false
	}
	for i := range k {
		hi, ok1 := unhex(s[2+2*i])
		lo, ok2 := unhex(s[3+2*i])
		if !ok1 || !ok2 {
			return k, false
		}
		k[i] = hi<<4 | lo
	}
	return k, true
}

// addrString is k in lower case with its 0x.
func addrString(k addrKey) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 2+2*len(k))
	b[0], b[1] = '0', 'x'
	for i, c := range k {
		b[2+2*i], b[3+2*i] = digits[c>>4], digits[c&15]
	}
	return string(b)
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// invoiceKey is an invoice id in 16 bytes: a UUID's own bytes (every invoice id
// is one, kassa.NewTimeUUID), or a number from invoiceIDs' table for any other id.
type invoiceKey [16]byte

// invoiceIDs turns invoice ids into keys and back. A canonical lower-case UUID of
// the RFC 9562 variant (10 in the top bits of byte 8) is its own key, with no
// entry here; any other id gets a numbered key of the reserved variant 111, which
// no UUID key has, kept in the table until forgotten.
type invoiceIDs struct {
	odd  map[invoiceKey]string
	keys map[string]invoiceKey
	next uint64
}

// key returns id's key, numbering it when it is not a UUID.
func (t *invoiceIDs) key(id string) invoiceKey {
	if k, ok := t.lookup(id); ok {
		return k
	}
	if t.odd == nil {
		t.odd, t.keys = map[invoiceKey]string{}, map[string]invoiceKey{}
	}
	t.next++
	var k invoiceKey
	for i, n := 0, t.next; i < 8; i, n = i+1, n>>8 {
		k[i] = byte(n)
	}
	k[8] = 0xe0
	t.odd[k], t.keys[id] = id, k
	return k
}

// lookup returns id's key without numbering it: false for an id not a UUID and
// not in the table.
func (t *invoiceIDs) lookup(id string) (invoiceKey, bool) {
	if k, ok := parseUUID(id); ok {
		return k, true
	}
	k, ok := t.keys[id]
	return k, ok
}

// id returns k's invoice id.
func (t *invoiceIDs) id(k invoiceKey) string {
	if k[8]&0xc0 == 0x80 {
		return uuidString(k)
	}
	return t.odd[k]
}

// forget drops k from the table (nothing for a UUID).
func (t *invoiceIDs) forget(k invoiceKey) {
	if id, ok := t.odd[k]; ok {
		delete(t.odd, k)
		delete(t.keys, id)
	}
}

// parseUUID reads a UUID in canonical lower-case form of the RFC 9562 variant:
// the ids whose form uuidString gives back byte for byte.
func parseUUID(s string) (invoiceKey, bool) {
	var k invoiceKey
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return k, false
	}
	j := 0
	for i := range k {
		if j == 8 || j == 13 || j == 18 || j == 23 {
			j++
		}
		hi, lo := s[j], s[j+1]
		if !lowerHex(hi) || !lowerHex(lo) {
			return k, false
		}
		a, _ := unhex(hi)
		b, _ := unhex(lo)
		k[i] = a<<4 | b
		j += 2
	}
	return k, k[8]&0xc0 == 0x80
}

func lowerHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

// uuidString is k in the canonical 8-4-4-4-12 lower-case form.
func uuidString(k invoiceKey) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 0, 36)
	for i, c := range k {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, digits[c>>4], digits[c&15])
	}
	return string(b)
}

// watched is one deposit address's entry: what matching a transfer to it and
// valuing it need, in values only.
type watched struct {
	invoice  invoiceKey
	merchant int64
	token    int64 // the token quoted
	// The quote's locked rate (USD per whole token) as numerator and
	// denominator; rateDen 0 when they do not fit, the rate then in bigRates.
	rateNum      int64
	rateDen      uint64
	quoteExpires int64 // Unix microseconds
}

// entry makes a's entry under key for invoice inv, keeping a rate too large for
// it in bigRates.
func (s *addressSet) entry(key addrKey, inv invoiceKey, a watch.Address) watched {
	e := watched{invoice: inv, merchant: a.MerchantID, token: a.TokenID, quoteExpires: a.QuoteExpiresAt.UnixMicro()}
	delete(s.bigRates, key)
	if r := a.USDPerToken; r != nil {
		if r.Num().IsInt64() && r.Denom().IsUint64() {
			e.rateNum, e.rateDen = r.Num().Int64(), r.Denom().Uint64()
		} else {
			if s.bigRates == nil {
				s.bigRates = map[addrKey]*big.Rat{}
			}
			s.bigRates[key] = new(big.Rat).Set(r)
		}
	}
	return e
}

// address is the watch.Address of key's entry e (its Address in lower case).
func (s *addressSet) address(key addrKey, e watched) watch.Address {
	rate := s.bigRates[key]
	if e.rateDen != 0 {
		rate = new(big.Rat).SetFrac(big.NewInt(e.rateNum), new(big.Int).SetUint64(e.rateDen))
	}
	return watch.Address{Address: addrString(key), InvoiceID: s.ids.id(e.invoice), MerchantID: e.merchant,
		TokenID: e.token, USDPerToken: rate, QuoteExpiresAt: time.UnixMicro(e.quoteExpires).UTC()}
}
