package store_test

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kassa"
	"kassa/store"
	"kassa/store/storetest"
)

// endpoint creates an endpoint of p for https://example.com/<name> subscribed to
// events.
func (f *fixture) endpoint(t *testing.T, p kassa.Principal, name string, events ...string) *kassa.WebhookEndpoint {
	t.Helper()
	ep, err := f.db.CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
		URL: ptr("https://example.com/" + name), Description: ptr(name), EnabledEvents: events})
	must(t, err)
	return ep
}

// deliveries returns every delivery of the endpoint, newest first, with attempts.
func (f *fixture) deliveries(t *testing.T, p kassa.Principal, endpointID string) []*kassa.WebhookDelivery {
	t.Helper()
	ds, more, err := f.db.WebhookDeliveries(f.ctx, p, kassa.DeliveryFilter{EndpointID: endpointID, Limit: 100})
	must(t, err)
	if more {
		t.Fatal("more than 100 deliveries")
	}
	return ds
}

func endpointIDs(es []*kassa.WebhookEndpoint) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

// endpointString renders every field of e, pointers followed, for comparisons.
func endpointString(e *kassa.WebhookEndpoint) string {
	deref := func(v any) string {
		switch v := v.(type) {
		case *string:
			if v != nil {
				return *v
			}
		case *time.Time:
			if v != nil {
				return v.UTC().Format(time.RFC3339Nano)
			}
		}
		return "<nil>"
	}
	return fmt.Sprintf("%s %d %s %s %q %q %s reason=%s %s prev=%q until=%s failing=%s created=%s updated=%s",
		e.ID, e.MerchantID, e.Environment, e.URL, e.Description, e.EnabledEvents, e.Status, deref(e.DisabledReason),
		e.Secret, e.PreviousSecret, deref(e.PreviousSecretUntil), deref(e.FailingSince),
		e.CreatedAt.UTC().Format(time.RFC3339Nano), e.UpdatedAt.UTC().Format(time.RFC3339Nano))
}

func validEndpointID(id string) bool {
	hex, ok := strings.CutPrefix(id, "we_")
	return ok && kassa.ValidEventID("evt_"+hex)
}

func TestWebhookEndpointCreate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep, err := f.db.CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
			URL: ptr("https://example.com/hook"), Description: ptr("Orders"),
			EnabledEvents: []string{"invoice.*", "invoice.paid", "invoice.*"}})
		must(t, err)
		now := f.clock.Now().Truncate(time.Microsecond)
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(ep.Secret, kassa.WebhookSecretPrefix))
		if !validEndpointID(ep.ID) || !strings.HasPrefix(ep.Secret, kassa.WebhookSecretPrefix) || err != nil || len(key) != 32 ||
			ep.MerchantID != f.m.ID || ep.Environment != kassa.Devnet || ep.URL != "https://example.com/hook" ||
			ep.Description != "Orders" || fmt.Sprint(ep.EnabledEvents) != "[invoice.* invoice.paid]" ||
			ep.Status != kassa.EndpointEnabled || ep.DisabledReason != nil || ep.PreviousSecret != "" ||
			ep.PreviousSecretUntil != nil || ep.FailingSince != nil || !ep.CreatedAt.Equal(now) || !ep.UpdatedAt.Equal(now) {
			t.Fatalf("created %+v", ep)
		}
		got, err := f.db.WebhookEndpoint(f.ctx, p, ep.ID)
		must(t, err)
		if endpointString(got) != endpointString(ep) {
			t.Fatalf("read back\n%s\nwant\n%s", endpointString(got), endpointString(ep))
		}
		if strings.Contains(jsonOf(t, got), ep.Secret) || !strings.Contains(jsonOf(t, kassa.SecretShown{WebhookEndpoint: ep}), ep.Secret) {
			t.Fatal("secret shown where it should not be, or not where it should")
		}
		if second := f.endpoint(t, p, "second", "*"); second.Secret == ep.Secret || second.ID == ep.ID {
			t.Fatal("two endpoints share a secret or id")
		}

		refused := []struct {
			name string
			p    kassa.Principal
			in   kassa.WebhookEndpointInput
			code string
		}{
			{"no url", p, kassa.WebhookEndpointInput{EnabledEvents: []string{"*"}}, "missing_param"},
			{"plain http", p, kassa.WebhookEndpointInput{URL: ptr("http://example.com/"), EnabledEvents: []string{"*"}}, "invalid_url"},
			{"no events", p, kassa.WebhookEndpointInput{URL: ptr("https://example.com/")}, "missing_param"},
			{"unknown event", p, kassa.WebhookEndpointInput{URL: ptr("https://example.com/"), EnabledEvents: []string{"invoice.deleted"}},
				"invalid_enabled_events"},
			{"loopback on mainnet", kassa.Principal{MerchantID: f.m.ID, Environment: kassa.Mainnet},
				kassa.WebhookEndpointInput{URL: ptr("https://localhost/"), EnabledEvents: []string{"*"}}, "invalid_url"},
		}
		for _, tt := range refused {
			t.Run(tt.name, func(t *testing.T) {
				_, err := f.db.CreateWebhookEndpoint(f.ctx, tt.p, tt.in)
				wantErr(t, err, kassa.KindInvalid, tt.code)
			})
		}
		list, err := f.db.WebhookEndpoints(f.ctx, p)
		must(t, err)
		if len(list) != 2 {
			t.Fatalf("%d endpoints after refused creates, want 2", len(list))
		}
		// Loopback over plain http is fine on devnet.
		local, err := f.db.CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
			URL: ptr("http://127.0.0.1:8080/hook"), EnabledEvents: []string{"*"}})
		must(t, err)
		if local.URL != "http://127.0.0.1:8080/hook" {
			t.Fatalf("url %q", local.URL)
		}
	})
}

func TestWebhookEndpointListAndIsolation(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		other := f.merchant(t, "other@example.com")
		mainnet := kassa.Principal{MerchantID: f.m.ID, Environment: kassa.Mainnet, Scope: kassa.ScopeMerchant}
		var made []*kassa.WebhookEndpoint
		for i := range 3 {
			made = append(made, f.endpoint(t, p, fmt.Sprint("e", i), "*"))
			f.clock.Advance(time.Second)
		}
		foreign := f.endpoint(t, principal(other), "foreign", "*")
		onMainnet := f.endpoint(t, mainnet, "mainnet", "*")

		list, err := f.db.WebhookEndpoints(f.ctx, p)
		must(t, err)
		if want := []string{made[2].ID, made[1].ID, made[0].ID}; fmt.Sprint(endpointIDs(list)) != fmt.Sprint(want) {
			t.Fatalf("list %v, want newest first %v", endpointIDs(list), want)
		}
		for name, c := range map[string]struct {
			p    kassa.Principal
			want string
		}{"other merchant": {principal(other), foreign.ID}, "mainnet": {mainnet, onMainnet.ID}} {
			list, err := f.db.WebhookEndpoints(f.ctx, c.p)
			must(t, err)
			if len(list) != 1 || list[0].ID != c.want {
				t.Fatalf("%s lists %v", name, endpointIDs(list))
			}
		}
		nobody := kassa.Principal{MerchantID: 987654, Environment: kassa.Devnet}
		if list, err := f.db.WebhookEndpoints(f.ctx, nobody); err != nil || len(list) != 0 {
			t.Fatalf("unknown merchant lists %v, %v", endpointIDs(list), err)
		}

		// Every call on another merchant's or environment's endpoint is not found.
		cases := []struct {
			name string
			p    kassa.Principal
			id   string
		}{
			{"other merchant's endpoint", principal(other), made[0].ID},
			{"mainnet principal", mainnet, made[0].ID},
			{"devnet principal on a mainnet endpoint", p, onMainnet.ID},
			{"unknown id", p, "we_0123456789abcdef0123456789abcdef"},
			{"garbage id", p, "we_\x00\xff"},
			{"empty id", p, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				calls := map[string]func() error{
					"retrieve": func() error { _, err := f.db.WebhookEndpoint(f.ctx, c.p, c.id); return err },
					"update": func() error {
						_, err := f.db.UpdateWebhookEndpoint(f.ctx, c.p, c.id, kassa.WebhookEndpointInput{Description: ptr("x")})
						return err
					},
					"rotate": func() error { _, err := f.db.RotateWebhookSecret(f.ctx, c.p, c.id); return err },
					"delete": func() error { return f.db.DeleteWebhookEndpoint(f.ctx, c.p, c.id) },
					"deliveries": func() error {
						_, _, err := f.db.WebhookDeliveries(f.ctx, c.p, kassa.DeliveryFilter{EndpointID: c.id})
						return err
					},
				}
				for name, call := range calls {
					if err := call(); kassa.ErrorKindOf(err) != kassa.KindNotFound || kassa.ErrorCode(err) != "resource_missing" {
						t.Errorf("%s: %v, want resource_missing", name, err)
					}
				}
			})
		}
		// Nothing was changed by the refused calls.
		got, err := f.db.WebhookEndpoint(f.ctx, p, made[0].ID)
		must(t, err)
		if got.Description != "e0" || got.Secret != made[0].Secret {
			t.Fatalf("endpoint changed by another principal: %+v", got)
		}
		got, err = f.db.WebhookEndpoint(f.ctx, mainnet, onMainnet.ID)
		must(t, err)
		if got.Description != "mainnet" || got.Secret != onMainnet.Secret {
			t.Fatalf("mainnet endpoint changed by a devnet principal: %+v", got)
		}
	})
}

func TestWebhookEndpointUpdate(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "invoice.*")
		created := ep.CreatedAt
		steps := []struct {
			name  string
			in    kassa.WebhookEndpointInput
			check func(*kassa.WebhookEndpoint) bool
		}{
			{"url", kassa.WebhookEndpointInput{URL: ptr("https://example.org/new")}, func(e *kassa.WebhookEndpoint) bool {
				return e.URL == "https://example.org/new" && e.Description == "hook" && fmt.Sprint(e.EnabledEvents) == "[invoice.*]"
			}},
			{"description", kassa.WebhookEndpointInput{Description: ptr("")}, func(e *kassa.WebhookEndpoint) bool {
				return e.URL == "https://example.org/new" && e.Description == ""
			}},
			{"events", kassa.WebhookEndpointInput{EnabledEvents: []string{"invoice_payment.*", "invoice.paid", "invoice.paid"}},
				func(e *kassa.WebhookEndpoint) bool {
					return fmt.Sprint(e.EnabledEvents) == "[invoice_payment.* invoice.paid]" && e.Description == ""
				}},
			{"nothing", kassa.WebhookEndpointInput{}, func(e *kassa.WebhookEndpoint) bool {
				return e.URL == "https://example.org/new" && fmt.Sprint(e.EnabledEvents) == "[invoice_payment.* invoice.paid]"
			}},
			{"disable", kassa.WebhookEndpointInput{Disabled: ptr(true)}, func(e *kassa.WebhookEndpoint) bool {
				return e.Status == kassa.EndpointDisabled && e.DisabledReason != nil && *e.DisabledReason == kassa.DisabledByMerchant
			}},
			{"disable again keeps the reason", kassa.WebhookEndpointInput{Disabled: ptr(true)}, func(e *kassa.WebhookEndpoint) bool {
				return e.Status == kassa.EndpointDisabled && *e.DisabledReason == kassa.DisabledByMerchant
			}},
			{"enable", kassa.WebhookEndpointInput{Disabled: ptr(false), URL: ptr("https://example.org/again")}, func(e *kassa.WebhookEndpoint) bool {
				return e.Status == kassa.EndpointEnabled && e.DisabledReason == nil && e.FailingSince == nil && e.URL == "https://example.org/again"
			}},
			{"enable again", kassa.WebhookEndpointInput{Disabled: ptr(false)}, func(e *kassa.WebhookEndpoint) bool {
				return e.Status == kassa.EndpointEnabled && e.DisabledReason == nil
			}},
		}
		for _, s := range steps {
			t.Run(s.name, func(t *testing.T) {
				f.clock.Advance(time.Second)
				got, err := f.db.UpdateWebhookEndpoint(f.ctx, p, ep.ID, s.in)
				must(t, err)
				now := f.clock.Now().Truncate(time.Microsecond)
				if !s.check(got) || !got.UpdatedAt.Equal(now) || !got.CreatedAt.Equal(created) || got.Secret != ep.Secret {
					t.Fatalf("updated %+v", got)
				}
				back, err := f.db.WebhookEndpoint(f.ctx, p, ep.ID)
				must(t, err)
				if endpointString(back) != endpointString(got) {
					t.Fatalf("read back\n%s\nwant\n%s", endpointString(back), endpointString(got))
				}
			})
		}
		before, err := f.db.WebhookEndpoint(f.ctx, p, ep.ID)
		must(t, err)
		for name, in := range map[string]kassa.WebhookEndpointInput{
			"bad url":      {URL: ptr("ftp://example.com/"), Description: ptr("changed")},
			"empty events": {EnabledEvents: []string{}, Description: ptr("changed")},
			"bad events":   {EnabledEvents: []string{"inv*"}},
		} {
			t.Run("refused "+name, func(t *testing.T) {
				_, err := f.db.UpdateWebhookEndpoint(f.ctx, p, ep.ID, in)
				if kassa.ErrorKindOf(err) != kassa.KindInvalid {
					t.Fatalf("err = %v, want invalid", err)
				}
				after, err := f.db.WebhookEndpoint(f.ctx, p, ep.ID)
				must(t, err)
				if endpointString(after) != endpointString(before) {
					t.Fatalf("a refused update changed the endpoint: %+v", after)
				}
			})
		}
	})
}

func TestWebhookEndpointDisableStopsDeliveries(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		ep := f.endpoint(t, p, "hook", "*")
		f.invoice(t, f.m, 1000, nil)
		// A failed attempt starts the failure record.
		jobs := f.claim(t, time.Minute, 1)
		f.finish(t, jobs[0], kassa.WebhookResult{StatusCode: 500})
		f.invoice(t, f.m, 1000, nil)
		if got := f.getEndpoint(t, p, ep.ID); got.FailingSince == nil {
			t.Fatal("no failing_since after a failed attempt")
		}

		_, err := f.db.UpdateWebhookEndpoint(f.ctx, p, ep.ID, kassa.WebhookEndpointInput{Disabled: ptr(true)})
		must(t, err)
		for _, d := range f.deliveries(t, p, ep.ID) {
			if d.Status != kassa.DeliveryFailed || d.NextAttemptAt != nil {
				t.Fatalf("delivery after disabling: %s", jsonOf(t, d))
			}
		}
		f.invoice(t, f.m, 1000, nil) // no delivery while disabled
		f.clock.Advance(time.Hour)
		if jobs := f.claim(t, time.Minute, 0); len(jobs) != 0 {
			t.Fatalf("claimed %d jobs of a disabled endpoint", len(jobs))
		}
		if n := len(f.deliveries(t, p, ep.ID)); n != 2 {
			t.Fatalf("%d deliveries, want 2", n)
		}

		got, err := f.db.UpdateWebhookEndpoint(f.ctx, p, ep.ID, kassa.WebhookEndpointInput{Disabled: ptr(false)})
		must(t, err)
		if got.Status != kassa.EndpointEnabled || got.FailingSince != nil || f.getEndpoint(t, p, ep.ID).FailingSince != nil {
			t.Fatalf("enabled %+v", got)
		}
		inv := f.invoice(t, f.m, 1000, nil)
		jobs = f.claim(t, time.Minute, 1)
		if !strings.Contains(string(jobs[0].Payload), inv.ID) {
			t.Fatalf("job after enabling is about another event: %s", jobs[0].Payload)
		}
	})
}

func (f *fixture) getEndpoint(t *testing.T, p kassa.Principal, id string) *kassa.WebhookEndpoint {
	t.Helper()
	ep, err := f.db.WebhookEndpoint(f.ctx, p, id)
	must(t, err)
	return ep
}

func TestWebhookEndpointDelete(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		p := principal(f.m)
		gone := f.endpoint(t, p, "gone", "*")
		kept := f.endpoint(t, p, "kept", "*")
		f.invoice(t, f.m, 1000, nil)
		f.invoice(t, f.m, 1000, nil)
		for _, j := range f.claim(t, time.Minute, 4) {
			f.finish(t, j, kassa.WebhookResult{StatusCode: 500})
		}
		count := func(table, id string) int {
			t.Helper()
			if table == "webhook_attempts" {
				return rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1", id)
			}
			return rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = $1", id)
		}
		allAttempts := rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_attempts")
		if count("webhook_deliveries", gone.ID) != 2 || count("webhook_attempts", gone.ID) != 2 || allAttempts != 4 {
			t.Fatal("setup: deliveries or attempts missing")
		}

		must(t, f.db.DeleteWebhookEndpoint(f.ctx, p, gone.ID))
		_, err := f.db.WebhookEndpoint(f.ctx, p, gone.ID)
		wantErr(t, err, kassa.KindNotFound, "resource_missing")
		wantErr(t, f.db.DeleteWebhookEndpoint(f.ctx, p, gone.ID), kassa.KindNotFound, "resource_missing")
		if n := rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = $1", gone.ID); n != 0 {
			t.Fatalf("%d deliveries of the deleted endpoint left", n)
		}
		if n := rawCount(t, cfg, "SELECT COUNT(*) FROM webhook_attempts"); n != 2 {
			t.Fatalf("%d attempts left, want the kept endpoint's 2", n)
		}
		if n := len(f.deliveries(t, p, kept.ID)); n != 2 {
			t.Fatalf("kept endpoint has %d deliveries, want 2", n)
		}
		// Events stay: they belong to the merchant, not the endpoint.
		if n := len(f.merchantEvents(t, f.m)); n != 2 {
			t.Fatalf("%d events after delete, want 2", n)
		}
		// Only the kept endpoint's retries are due.
		f.clock.Advance(time.Minute)
		for _, j := range f.claim(t, time.Minute, 2) {
			if j.Delivery.EndpointID != kept.ID {
				t.Fatalf("claimed a delivery of %s", j.Delivery.EndpointID)
			}
		}
	})
}

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
		if !strings.Contains(jsonOf(t, kassa.SecretShown{WebhookEndpoint: rotated}), rotated.Secret) {
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
		f.finish(t, jobs[0], kassa.WebhookResult{StatusCode: 500})
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
		_, err := f.db.CreateWebhookEndpoint(f.ctx, p, in)
		wantErr(t, err, kassa.KindPermission, "endpoint_limit_reached")
		// Disabled endpoints count too.
		_, err = f.db.UpdateWebhookEndpoint(f.ctx, p, made[0].ID, kassa.WebhookEndpointInput{Disabled: ptr(true)})
		must(t, err)
		_, err = f.db.CreateWebhookEndpoint(f.ctx, p, in)
		wantErr(t, err, kassa.KindPermission, "endpoint_limit_reached")
		// The limit is per merchant and environment.
		f.endpoint(t, kassa.Principal{MerchantID: f.m.ID, Environment: kassa.Mainnet}, "mainnet", "*")
		f.endpoint(t, principal(f.merchant(t, "other@example.com")), "other", "*")
		// Deleting one makes room.
		must(t, f.db.DeleteWebhookEndpoint(f.ctx, p, made[3].ID))
		f.endpoint(t, p, "replacement", "*")
		_, err = f.db.CreateWebhookEndpoint(f.ctx, p, in)
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
				_, err := f.db.CreateWebhookEndpoint(f.ctx, racer, kassa.WebhookEndpointInput{
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
