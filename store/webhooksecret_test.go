package store_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

func TestWebhookSecretRotation(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "*")
		f.clock.Advance(time.Second)
		rotated, err := f.db.RotateWebhookSecret(f.ctx, p, ep.ID)
		must(t, err)
		now := f.clock.Now()
		if rotated.Secret == ep.Secret || !strings.HasPrefix(rotated.Secret, kassa.WebhookSecretPrefix) ||
			rotated.PreviousSecret != ep.Secret || rotated.PreviousSecretUntil == nil ||
			!rotated.PreviousSecretUntil.Equal(now.Truncate(time.Microsecond).Add(kassa.WebhookSecretGrace)) ||
			!rotated.UpdatedAt.Equal(now.Truncate(time.Microsecond)) {
			t.Fatalf("rotated %+v", rotated)
		}
		if !strings.Contains(jsonOf(t, rotated.WithSecret()), rotated.Secret) {
			t.Fatal("rotate response does not show the new secret")
		}
		stored := f.getEndpoint(t, p, ep.ID)
		tests := []struct {
			name string
			at   time.Duration
			want []string
		}{
			{"at once", 0, []string{rotated.Secret, ep.Secret}},
			{"after 23 hours", 23 * time.Hour, []string{rotated.Secret, ep.Secret}},
			{"after 25 hours", 25 * time.Hour, []string{rotated.Secret}},
		}
		for _, tt := range tests {
			if got := stored.SigningSecrets(now.Add(tt.at)); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("%s: SigningSecrets = %d secrets, want %d", tt.name, len(got), len(tt.want))
			}
		}
		// Claimed jobs are signed with what is valid at claim time.
		f.invoice(t, f.m, 1000, nil)
		jobs := f.claim(t, time.Minute, 1)
		if fmt.Sprint(jobs[0].Secrets) != fmt.Sprint([]string{rotated.Secret, ep.Secret}) {
			t.Fatalf("job secrets %d, want new and old", len(jobs[0].Secrets))
		}
		f.finish(t, jobs[0], delivery.Result{StatusCode: 500})
		f.clock.Advance(25 * time.Hour)
		jobs = f.claim(t, time.Minute, 1)
		if fmt.Sprint(jobs[0].Secrets) != fmt.Sprint([]string{rotated.Secret}) {
			t.Fatalf("job secrets after the grace: %d, want the new one", len(jobs[0].Secrets))
		}
		// A second rotation drops the first secret at once.
		again, err := f.db.RotateWebhookSecret(f.ctx, p, ep.ID)
		must(t, err)
		if got := again.SigningSecrets(f.clock.Now()); fmt.Sprint(got) != fmt.Sprint([]string{again.Secret, rotated.Secret}) {
			t.Fatalf("after a second rotation %d secrets", len(got))
		}
	})
}

func TestWebhookEndpointLimit(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		var made []*kassa.WebhookEndpoint
		for i := range kassa.MaxWebhookEndpoints {
			made = append(made, f.endpoint(t, p, fmt.Sprint(i), "*"))
		}
		in := kassa.WebhookEndpointInput{URL: ptr("https://example.com/one-too-many"), EnabledEvents: []string{"*"}}
		_, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, in)
		wantErr(t, err, kassa.KindPermission, "endpoint_limit_reached")
		// Disabled endpoints count too.
		_, err = f.db.UpdateWebhookEndpoint(f.ctx, p, made[0].ID, kassa.WebhookEndpointInput{Disabled: ptr(true)})
		must(t, err)
		_, err = endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, in)
		wantErr(t, err, kassa.KindPermission, "endpoint_limit_reached")
		// The limit is per merchant and environment.
		f.endpoint(t, kassa.Principal{MerchantID: f.m.ID, Environment: kassa.Mainnet}, "mainnet", "*")
		f.endpoint(t, principal(f.merchant(t, "other@example.com")), "other", "*")
		// Deleting one makes room.
		must(t, f.db.DeleteWebhookEndpoint(f.ctx, p, made[3].ID))
		f.endpoint(t, p, "replacement", "*")
		_, err = endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, in)
		wantErr(t, err, kassa.KindPermission, "endpoint_limit_reached")
		list, err := f.db.WebhookEndpoints(f.ctx, p)
		must(t, err)
		if len(list) != kassa.MaxWebhookEndpoints || slices.Contains(endpointIDs(list), made[3].ID) {
			t.Fatalf("%d endpoints", len(list))
		}

		// Concurrent creates cannot pass the limit either.
		racer := principal(f.merchant(t, "racer@example.com"))
		const tries = 3 * kassa.MaxWebhookEndpoints
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			created int
			errs    []error
		)
		for i := range tries {
			wg.Go(func() {
				_, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, racer, kassa.WebhookEndpointInput{
					URL: ptr(fmt.Sprint("https://example.com/", i)), EnabledEvents: []string{"*"}})
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					created++
				} else if kassa.ErrorCode(err) != "endpoint_limit_reached" {
					errs = append(errs, err)
				}
			})
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatal(errs[0])
		}
		list, err = f.db.WebhookEndpoints(f.ctx, racer)
		must(t, err)
		if created != kassa.MaxWebhookEndpoints || len(list) != kassa.MaxWebhookEndpoints {
			t.Fatalf("%d concurrent creates succeeded, %d endpoints stored, want %d", created, len(list), kassa.MaxWebhookEndpoints)
		}
	})
}
