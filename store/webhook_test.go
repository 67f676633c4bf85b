package store_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/delivery"
	"github.com/kassapay/kassa/endpoints"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// endpoint creates an endpoint of p for https://example.com/<name> subscribed to
// events.
func (f *fixture) endpoint(t *testing.T, p kassa.Principal, name string, events ...string) *kassa.WebhookEndpoint {
	t.Helper()
	ep, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
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
		ep, err := endpoints.Over(f.db, delivery.Targets{}).CreateWebhookEndpoint(f.ctx, p, kassa.WebhookEndpointInput{
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
		if strings.Contains(jsonOf(t, got), ep.Secret) || !strings.Contains(jsonOf(t, ep.WithSecret()), ep.Secret) {
			t.Fatal("secret shown where it should not be, or not where it should")
		}
		if second := f.endpoint(t, p, "second", "*"); second.Secret == ep.Secret || second.ID == ep.ID {
			t.Fatal("two endpoints share a secret or id")
		}

		list, err := f.db.WebhookEndpoints(f.ctx, p)
		must(t, err)
		if len(list) != 2 {
			t.Fatalf("%d endpoints, want 2", len(list))
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
				got, err := endpoints.Over(f.db, delivery.Targets{}).UpdateWebhookEndpoint(f.ctx, p, ep.ID, s.in)
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
	})
}
