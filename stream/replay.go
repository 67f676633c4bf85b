package stream

import (
	"context"

	"github.com/kassapay/kassa"
)

// ReplayPage is how many events one replay read returns.
const ReplayPage = 1000

// Replay is a resumed stream's replay state: the position of the last event handed
// to the client. Subscribe first, then call Next until it reports done, then pass
// every live event through Fresh. Nothing is missed: the subscription holds every
// event after the hub's position at Subscribe, and the replay reads every settled
// event after the client's, up to the end of the feed, which is at or past the
// hub's position. Nothing is sent twice: live events arrive in feed order, and
// Fresh drops those at or before the last one replayed.
type Replay struct {
	feed       kassa.EventService
	merchantID int64
	env        kassa.Environment
	scope      kassa.Scope
	last       kassa.FeedPos
	done       bool
}

// ResumeAfter starts the replay of one merchant's events in env seen by scope after
// position after (the last event the client saw).
func ResumeAfter(feed kassa.EventService, merchantID int64, env kassa.Environment, scope kassa.Scope, after kassa.FeedPos) *Replay {
	return &Replay{feed: feed, merchantID: merchantID, env: env, scope: scope, last: after}
}

// Next returns the next page of the replay, in feed order, and whether the replay
// is complete (this page was the last; it may be empty).
func (r *Replay) Next(ctx context.Context) ([]*kassa.Event, bool, error) {
	if r.done {
		return nil, true, nil
	}
	events, err := r.feed.MerchantFeedAfter(ctx, r.merchantID, r.env, r.scope, r.last, ReplayPage)
	if err != nil {
		return nil, false, err
	}
	if len(events) > 0 {
		r.last = events[len(events)-1].Pos
	}
	r.done = len(events) < ReplayPage
	return events, r.done, nil
}

// Fresh reports whether a live event is new to the client, that is after the last
// event replayed or passed before, and records it as passed.
func (r *Replay) Fresh(e *kassa.Event) bool {
	if !e.Pos.After(r.last) {
		return false
	}
	r.last = e.Pos
	return true
}
