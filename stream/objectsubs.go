package stream

import (
	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/internal/uuidscan"
)

// KeyStream is an EventStream that can also deliver only the events that mention
// one object: the payment page follows its invoice, the refund page its refund,
// among all the merchant's events.
type KeyStream interface {
	EventStream
	// SubscribeKey is Subscribe restricted to the events whose data contains key
	// (an object's id), as bytes.Contains(event.Data, key) decides.
	SubscribeKey(merchantID int64, env kassa.Environment, scope kassa.Scope, key string) Subscription
}

var _ KeyStream = (*Hub)(nil)

// SubscribeKey follows the events of one merchant in env that scope may see and
// whose data contains key, from the hub's current position; otherwise as Subscribe.
// When key is a UUID (every object id), the hub finds its subscriptions by the
// UUIDs in each event (internal/uuidscan), so the cost of an event does not grow
// with the merchant's other subscriptions; any other key is tested against every
// event of the merchant.
func (h *Hub) SubscribeKey(merchantID int64, env kassa.Environment, scope kassa.Scope, key string) Subscription {
	return h.subscribe(merchantID, env, scope, key)
}

// objectSubs indexes the subscriptions to one object's events by merchant,
// environment and scope, then by the object's id (a UUID); guarded by the hub's
// mutex.
type objectSubs struct {
	byKey map[subKey]map[string]map[*Sub]struct{}
	n     int
	seen  [][]byte // the ids an event mentioned, to hand it to a subscriber once
}

func newObjectSubs() objectSubs {
	return objectSubs{byKey: map[subKey]map[string]map[*Sub]struct{}{}}
}

// add indexes s when it follows a UUID, and reports whether it did.
func (o *objectSubs) add(s *Sub) bool {
	if !kassa.ValidUUID(s.object) {
		return false
	}
	ids := o.byKey[s.key]
	if ids == nil {
		ids = map[string]map[*Sub]struct{}{}
		o.byKey[s.key] = ids
	}
	set := ids[s.object]
	if set == nil {
		set = map[*Sub]struct{}{}
		ids[s.object] = set
	}
	set[s] = struct{}{}
	o.n++
	return true
}

// remove takes s out of the index and reports whether it was there.
func (o *objectSubs) remove(s *Sub) bool {
	ids := o.byKey[s.key]
	set := ids[s.object]
	if _, ok := set[s]; !ok {
		return false
	}
	delete(set, s)
	if len(set) == 0 {
		delete(ids, s.object)
		if len(ids) == 0 {
			delete(o.byKey, s.key)
		}
	}
	o.n--
	return true
}

// fanOut hands e, of key, to the subscriptions of every object it mentions, once
// each.
func (o *objectSubs) fanOut(h *Hub, key subKey, e *kassa.Event) {
	ids := o.byKey[key]
	if ids == nil {
		return
	}
	o.seen = o.seen[:0]
	uuidscan.Each(e.Data, func(id []byte) {
		for _, s := range o.seen {
			if string(s) == string(id) {
				return
			}
		}
		o.seen = append(o.seen, id)
		for s := range ids[string(id)] {
			h.send(s, e)
		}
	})
	clear(o.seen) // e.Data is not held past the fan-out
}

// stop closes every object subscription with ErrStreamStopped.
func (o *objectSubs) stop() {
	for _, ids := range o.byKey {
		for _, set := range ids {
			for s := range set {
				s.err, s.done = ErrStreamStopped, true
				close(s.ch)
			}
		}
	}
	*o = newObjectSubs()
}
