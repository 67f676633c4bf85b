package httpx

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/idempotency"
	"github.com/kassapay/kassa/sealed"
)

// claimedTimeout bounds a handler that owns an idempotency key; it is well under
// kassa.IdempotencyStale, after which another request may take the key over.
const claimedTimeout = 30 * time.Second

// replayReadTimeout bounds the read of a held record after a StoreOnly run
// (replayHeld); past it the run's own response is sent.
const replayReadTimeout = 5 * time.Second

// IdempotencyOptions configure the idempotency layer of one route.
type IdempotencyOptions struct {
	Required bool // a request without Idempotency-Key is refused
	UUID     bool // the key must be a UUID
	// SavesWithChange says the handler's store call saves the response in the
	// transaction of its change (SaveResponse, WriteSaved). Then no claim is
	// written to the store before the handler runs: the key is held in this
	// process, and the store's unique key stops a concurrent request on another
	// instance. Without it the key is claimed in the store first, a write of its own.
	SavesWithChange bool
	// StoreOnly says, with SavesWithChange, that the handler's only effect is the
	// store transaction that saves its response. Then the store is not read before
	// the handler runs: inserting the record with the change is the check (a live
	// record under the key rolls the change back, kassa.ErrClaimLost), and only a
	// request whose response was not saved with a change (that conflict, a 4xx, a
	// 5xx) reads the record, to replay it or refuse as a read first would have.
	StoreOnly bool
}

// Claim is the Idempotency-Key a request holds while its handler runs.
type Claim struct {
	scope       kassa.IdempotencyScope
	fingerprint string
	durable     bool // claimed in the store (ClaimIdempotencyKey), not only in this process
	sealer      *sealed.Responses
	saved       bool // the store saved the response with the change
	readAfter   bool // the store was not read first (IdempotencyOptions.StoreOnly)
}

// ClaimFunc is a handler behind Idempotent; claim is nil when the request sent no
// key.
type ClaimFunc func(w http.ResponseWriter, r *http.Request, claim *Claim) error

// WithoutClaim adapts a handler whose response is saved after it returns, like any
// other, rather than with its change.
func WithoutClaim(h Func) ClaimFunc {
	return func(w http.ResponseWriter, r *http.Request, _ *Claim) error { return h(w, r) }
}

// SaveResponse returns what a store needs to save the response, rendered by render
// from what it made, in the transaction of the change; nil when the request holds
// no key.
func SaveResponse[T any](claim *Claim, render func(T) (status int, body []byte, err error)) *kassa.SavedResponse[T] {
	if claim == nil {
		return nil
	}
	return &kassa.SavedResponse[T]{Scope: claim.scope, Fingerprint: claim.fingerprint, Claimed: claim.durable, Render: render,
		Seal:    func(body []byte) []byte { return claim.sealer.Seal(claim.scope, body) },
		SealRef: func(body []byte, ref *kassa.Event) []byte { return claim.sealer.SealRef(claim.scope, body, ref) }}
}

// WriteSaved writes the response the store saved with the change (exactly the
// bytes a replay will send) and reports whether there was one.
func WriteSaved[T any](w http.ResponseWriter, claim *Claim, saved *kassa.SavedResponse[T]) bool {
	status, body, ok := saved.Saved()
	if !ok {
		return false
	}
	claim.saved = true
	WriteRaw(w, status, body)
	return true
}

func errIdempotencyKeyRequired() error {
	return ErrInvalid("Idempotency-Key", "idempotency_key_required",
		"This request needs an Idempotency-Key header holding a UUID v4, unique per request.")
}

// Idempotent makes a POST handler safe to retry. It runs after authentication and
// rate limiting. A request's key is held for (merchant, environment, method and
// path, key) with a fingerprint of its method, path and canonical body, first in
// this process (runningClaims), then, unless the handler saves its response with
// its change (SavesWithChange), by a claim in the store:
//   - same key, same body, finished: the saved status and body, Idempotent-Replayed: true;
//   - same key, different body: 409 idempotency_key_reused;
//   - same key while the first request runs: 409 idempotency_key_in_use.
//
// The outcome is saved for 2xx and 5xx (a panic saves a 500); a 4xx releases the
// claim, so a retry with a fixed body works, and so does a 503 (the store or an
// upstream did not answer), so a retry after the outage runs. A handler whose store call supports it
// gets the claim and has its response saved in the same transaction as the change
// it makes (SaveResponse, WriteSaved).
func (s *Core) Idempotent(opts IdempotencyOptions, h ClaimFunc) Func {
	return func(w http.ResponseWriter, r *http.Request) error {
		key := r.Header.Get("Idempotency-Key")
		switch {
		case key == "" && opts.Required:
			return errIdempotencyKeyRequired()
		case key == "":
			return h(w, r, nil)
		case len(key) > kassa.MaxIdempotencyKey:
			return ErrInvalid("Idempotency-Key", "idempotency_key_too_long",
				"The Idempotency-Key header must be at most 255 characters.")
		case opts.UUID && !kassa.ValidUUID(key):
			return errIdempotencyKeyRequired()
		}
		body, err := ReadBody(r)
		if err != nil {
			return err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		p := Principal(r.Context())
		scope := kassa.IdempotencyScope{MerchantID: p.MerchantID, Environment: p.Environment,
			Route: r.Method + " " + r.URL.Path, Key: key, Owner: kassa.NewClaimOwner()}
		fp := fingerprint(r.Method, r.URL.Path, body)
		if held, ok := s.claims.take(scope, fp); !ok {
			return s.replayOrRefuse(w, r, scope, &idempotency.Record{Fingerprint: held}, fp)
		}
		defer s.claims.release(scope)
		claim := &Claim{scope: scope, fingerprint: fp, durable: !opts.SavesWithChange, sealer: s.sealer,
			readAfter: opts.SavesWithChange && opts.StoreOnly}
		var rec *idempotency.Record
		switch {
		case claim.readAfter:
			return s.runClaimed(w, r, claim, h)
		case opts.SavesWithChange:
			rec, err = s.idempotency.IdempotencyRecord(r.Context(), scope)
		default:
			rec, err = s.idempotency.ClaimIdempotencyKey(r.Context(), scope, fp)
		}
		if err != nil {
			return err
		}
		if rec != nil {
			return s.replayOrRefuse(w, r, scope, rec, fp)
		}
		return s.runClaimed(w, r, claim, h)
	}
}

// replayOrRefuse answers a request whose key is held by an earlier request. A
// saved response that does not open (altered, or sealed under another secret) is
// 409 idempotency_response_unreadable: the first request may have made its change,
// so it is neither replayed as garbage nor run again.
func (s *Core) replayOrRefuse(w http.ResponseWriter, r *http.Request, scope kassa.IdempotencyScope,
	rec *idempotency.Record, fp string) error {
	switch idempotency.Resolve(rec, fp) {
	case idempotency.Replay:
		body, err := s.sealer.Open(scope, rec.Body, rec.Ref)
		if err != nil {
			s.log.LogAttrs(r.Context(), slog.LevelWarn, "saved idempotent response does not open",
				slog.String("request_id", RequestID(r.Context())), slog.String("route", scope.Route))
			return err
		}
		w.Header().Set("Idempotent-Replayed", "true")
		WriteRaw(w, rec.StatusCode, body)
		return nil
	case idempotency.Reused:
		return &kassa.Error{Kind: kassa.KindIdempotency, Code: "idempotency_key_reused", Param: "Idempotency-Key",
			Message: "This Idempotency-Key was already used with a different request body."}
	default:
		return &kassa.Error{Kind: kassa.KindIdempotency, Code: "idempotency_key_in_use", Param: "Idempotency-Key",
			Message: "A request with this Idempotency-Key is still being processed; retry shortly."}
	}
}

// runClaimed runs the handler for a held key, records its response and saves it,
// or releases a claim in the store.
func (s *Core) runClaimed(w http.ResponseWriter, r *http.Request, claim *Claim, h ClaimFunc) error {
	bg := context.WithoutCancel(r.Context())
	// The run's headers are its own until its response is the one sent: a replay
	// of the held record must not carry, say, the Retry-After of the run's 503.
	rec := &captureWriter{header: w.Header().Clone(), status: http.StatusOK}
	finished := false
	defer func() {
		if finished {
			return
		}
		if s.replayHeld(w, r, claim) {
			return // the panic goes on to the recovery layer, which logs it
		}
		// The handler panicked: save the 500 the client will get, then let the
		// recovery layer answer.
		_, env := Classify(errors.New("panic"), RequestID(r.Context()))
		body, _ := Marshal(env)
		s.saveOutcome(bg, claim, http.StatusInternalServerError, body)
	}()
	// The handler runs to completion even if the client goes away, so the saved
	// outcome is the real one and a retry replays it instead of a spurious 5xx.
	hctx, cancel := context.WithTimeout(bg, claimedTimeout)
	defer cancel()
	r = r.WithContext(hctx)
	if err := h(rec, r, claim); err != nil {
		s.WriteError(rec, r, err)
	}
	finished = true
	if s.replayHeld(w, r, claim) {
		return nil
	}
	if claim.saved {
		// The store saved the response in the transaction that made the change.
	} else if rec.status >= 400 && rec.status < 500 || rec.status == http.StatusServiceUnavailable {
		// Nothing was done, or the store did not answer: a retry runs again (a
		// change the store did commit carries its response, saved with it). A key
		// held only in this process needs nothing released in the store.
		s.releaseDurable(bg, claim)
	} else {
		s.saveOutcome(bg, claim, rec.status, rec.body)
	}
	replaceHeader(w.Header(), rec.header)
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body)
	return nil
}

// replaceHeader makes dst hold exactly what src holds.
func replaceHeader(dst, src http.Header) {
	for k := range dst {
		if _, ok := src[k]; !ok {
			delete(dst, k)
		}
	}
	for k, v := range src {
		dst[k] = v
	}
}

// replayHeld answers, for a request whose key was not read before its handler
// ran (IdempotencyOptions.StoreOnly) and whose response was not saved with a
// change, what a live record under the key says (replay, reused or in use), as a
// read first would have; it reports whether there was one.
func (s *Core) replayHeld(w http.ResponseWriter, r *http.Request, claim *Claim) bool {
	if !claim.readAfter || claim.saved {
		return false
	}
	// The request's own deadline may be what failed the run (a 503): the read gets
	// one of its own, so a store that does not answer cannot hold the key here.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), replayReadTimeout)
	defer cancel()
	held, err := s.idempotency.IdempotencyRecord(ctx, claim.scope)
	if err != nil || held == nil {
		return false
	}
	if err := s.replayOrRefuse(w, r, claim.scope, held, claim.fingerprint); err != nil {
		s.WriteError(w, r, err)
	}
	return true
}

// releaseDurable forgets the claim in the store of a request that made one.
func (s *Core) releaseDurable(ctx context.Context, claim *Claim) {
	if !claim.durable {
		return
	}
	if err := s.idempotency.ReleaseIdempotencyKey(ctx, claim.scope); err != nil {
		s.log.LogAttrs(ctx, slog.LevelError, "releasing idempotency key failed",
			slog.String("request_id", RequestID(ctx)), slog.String("error", err.Error()))
	}
}

// saveOutcome saves a response the store did not save with a change: it completes
// the claim in the store, or inserts the record of a key held only here.
func (s *Core) saveOutcome(ctx context.Context, claim *Claim, status int, body []byte) {
	record := s.sealer.Seal(claim.scope, body)
	var err error
	if claim.durable {
		err = s.idempotency.CompleteIdempotencyKey(ctx, claim.scope, status, record)
	} else {
		err = s.idempotency.SaveIdempotentResponse(ctx, claim.scope, claim.fingerprint, status, record)
	}
	if err != nil {
		s.log.LogAttrs(ctx, slog.LevelError, "saving idempotent response failed",
			slog.String("request_id", RequestID(ctx)), slog.String("error", err.Error()))
	}
}
