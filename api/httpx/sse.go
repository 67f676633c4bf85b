package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/stream"
)

// Timing of the Server-Sent Events views (the payment page's and the
// dashboard's invoice page).
const (
	SSECheckEvery = 15 * time.Second // a check (and keep-alive) even without events: expiry has none until swept
	SSEPollEvery  = 2 * time.Second  // without an event stream, how often the view is read
	SSELifetime   = 30 * time.Minute // then the browser reconnects (EventSource does so by itself)
)

// SSEView is a view streamed as Server-Sent Events: the JSON of Read, sent at
// once and again each time it changes (a comment keeps the connection alive
// between). It wakes on the merchant's events whose data holds Key (a stream that
// is a stream.KeyStream hands it only those), and checks
// on a timer anyway; it ends when the client leaves, after SSELifetime, or when
// Read fails or says the view is final.
type SSEView struct {
	Stream     stream.EventStream // nil: poll every SSEPollEvery
	MerchantID int64
	Env        kassa.Environment
	Key        string // an event that mentions it (an invoice id) means a change
	RetryMS    int    // when > 0, the reconnection delay sent with each view
	// Read returns the view now, and whether it can still change.
	Read func(ctx context.Context) (view any, open bool, err error)
}

// Serve streams the view to the client; an error of Read ends the stream.
func (s SSEView) Serve(w http.ResponseWriter, r *http.Request) {
	rc := Streaming(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)

	var events <-chan *kassa.Event
	every := SSEPollEvery
	if s.Stream != nil {
		var sub stream.Subscription
		if ks, ok := s.Stream.(stream.KeyStream); ok {
			sub = ks.SubscribeKey(s.MerchantID, s.Env, kassa.ScopeMerchant, s.Key)
		} else {
			sub = s.Stream.Subscribe(s.MerchantID, s.Env, kassa.ScopeMerchant)
		}
		defer sub.Close()
		events, every = sub.Events(), SSECheckEvery
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	end := time.NewTimer(SSELifetime)
	defer end.Stop()
	prefix := []byte("data: ")
	if s.RetryMS > 0 {
		prefix = []byte("retry: " + strconv.Itoa(s.RetryMS) + "\ndata: ")
	}
	var last []byte
	// send writes the view when it changed (or a comment when ping) and
	// reports whether to go on.
	send := func(ping bool) bool {
		view, open, err := s.Read(r.Context())
		if err != nil {
			return false
		}
		b, _ := json.Marshal(view)
		switch {
		case !bytes.Equal(b, last):
			err = StreamWrite(w, rc, append(append(append([]byte{}, prefix...), b...), '\n', '\n'))
			last = b
		case ping:
			err = StreamWrite(w, rc, []byte(": ping\n\n"))
		}
		return err == nil && open
	}
	if !send(false) {
		return
	}
	key := []byte(s.Key)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-end.C:
			return
		case e, open := <-events:
			if !open {
				return // the stream stopped (shutdown) or dropped us: the browser reconnects
			}
			if bytes.Contains(e.Data, key) && !send(false) {
				return
			}
		case <-ticker.C:
			if !send(true) {
				return
			}
		}
	}
}
