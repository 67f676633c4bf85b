package dashboard

import (
	"context"
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/idempotency"
)

// once runs fn at most once per form key, through the idempotency store the API
// uses: the key is claimed for (merchant, environment, this route, key); a
// second submit of the same form after fn succeeded is answered as the first
// (fn does not run again), one while the first still runs is 409, and a failure
// releases the key so the form can be fixed and sent again. body tells two
// different submits of one key apart; done is what a replay answers.
func (d *Dashboard) once(r *http.Request, v *visit, env kassa.Environment, key, body, done string, fn func() error) error {
	_, err := d.onceDone(r, v, env, key, body, func() (string, error) { return done, fn() })
	return err
}

// onceDone is once for a form whose answer is known only after fn ran (the page
// of what it made): fn returns it, and a replay returns the first submit's.
func (d *Dashboard) onceDone(r *http.Request, v *visit, env kassa.Environment, key, body string, fn func() (string, error)) (string, error) {
	if d.cfg.Idempotency == nil {
		return fn()
	}
	if !kassa.ValidUUID(key) {
		return "", kassa.Invalidf("idempotency_key", "idempotency_key_required", "This form is out of date: reload the page and try again.")
	}
	scope := kassa.IdempotencyScope{MerchantID: v.m.ID, Environment: env, Route: r.Method + " " + r.URL.Path,
		Key: key, Owner: kassa.NewClaimOwner()}
	ctx := context.WithoutCancel(r.Context())
	rec, err := d.cfg.Idempotency.ClaimIdempotencyKey(ctx, scope, body)
	if err != nil {
		return "", err
	}
	if rec != nil {
		switch idempotency.Resolve(rec, body) {
		case idempotency.Replay:
			return string(rec.Body), nil
		case idempotency.Reused:
			return "", &kassa.Error{Kind: kassa.KindIdempotency, Code: "idempotency_key_reused", Param: "idempotency_key",
				Message: "This form was already sent with other values: reload the page and try again."}
		default:
			return "", kassa.ErrClaimLost
		}
	}
	done, err := fn()
	if err != nil {
		if rerr := d.cfg.Idempotency.ReleaseIdempotencyKey(ctx, scope); rerr != nil {
			d.cfg.Log.Error("dashboard: release idempotency key", "error", rerr.Error())
		}
		return "", err
	}
	if err := d.cfg.Idempotency.CompleteIdempotencyKey(ctx, scope, http.StatusSeeOther, []byte(done)); err != nil {
		// The change is made; a lost record only means a resubmit is refused by
		// the service's own rules instead of replayed.
		d.cfg.Log.Error("dashboard: complete idempotency key", "error", err.Error())
	}
	return done, nil
}
