package store_test

import (
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestDashboardIdleTimeout: a session ends kassa.DashboardIdleTimeout after its
// last recorded use, whatever its absolute lifetime; a session used every 20
// minutes lives on until that lifetime; reading a session writes nothing, and
// touching an idle one does not bring it back.
func TestDashboardIdleTimeout(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		tests := []struct {
			name  string
			every time.Duration // how often the session is used (touched); 0: never
			after time.Duration // when it is checked, from sign-in
			live  bool
			code  string // the refusal's code when not live
		}{
			{"29 idle minutes", 0, 29 * time.Minute, true, ""},
			{"30 idle minutes", 0, 30 * time.Minute, false, "session_idle"},
			{"31 idle minutes", 0, 31 * time.Minute, false, "session_idle"},
			{"used every 20 minutes, after an hour", 20 * time.Minute, time.Hour, true, ""},
			{"used every 20 minutes, past its lifetime", 20 * time.Minute, kassa.DashboardSessionTTL, false, "session_ended"},
			{"used every 40 minutes", 40 * time.Minute, 80 * time.Minute, false, "session_idle"},
		}
		f := newFixture(t, cfg)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				token := kassa.NewDashboardToken()
				if _, err := f.db.CreateDashboardSession(f.ctx, token, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet); err != nil {
					t.Fatal(err)
				}
				for at := time.Duration(0); at < tt.after; {
					step := tt.after - at
					if tt.every > 0 {
						step = min(step, tt.every)
					}
					f.clock.Advance(step)
					at += step
					if tt.every > 0 && at < tt.after {
						must(t, f.db.TouchDashboardSession(f.ctx, token))
					}
				}
				s, err := f.db.DashboardSession(f.ctx, token)
				if tt.live {
					if err != nil || s.MerchantID != f.m.ID {
						t.Fatalf("%+v, %v; want the session", s, err)
					}
					return
				}
				if e := kassa.AsError(err); e == nil || e.Kind != kassa.KindUnauthenticated || e.Code != tt.code {
					t.Fatalf("%+v, %v; want %s", s, err, tt.code)
				}
				// Touching an ended session brings nothing back.
				must(t, f.db.TouchDashboardSession(f.ctx, token))
				if _, err := f.db.DashboardSession(f.ctx, token); err == nil {
					t.Fatal("the ended session came back once touched")
				}
			})
		}
	})
}

// TestDashboardSessionReadWritesNothing: reading a session does not record a
// use: only TouchDashboardSession does, so a read alone lets it go idle.
func TestDashboardSessionReadWritesNothing(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		token := kassa.NewDashboardToken()
		s, err := f.db.CreateDashboardSession(f.ctx, token, f.m.ID, f.cv(t, f.m.ID), kassa.Devnet)
		must(t, err)
		for range 2 {
			f.clock.Advance(10 * time.Minute)
			got, err := f.db.DashboardSession(f.ctx, token)
			if err != nil || !got.LastSeenAt.Equal(s.LastSeenAt) {
				t.Fatalf("read: %+v, %v; last use %v", got, err, s.LastSeenAt)
			}
		}
		f.clock.Advance(10 * time.Minute)
		if _, err := f.db.DashboardSession(f.ctx, token); kassa.AsError(err).Code != "session_idle" {
			t.Fatalf("after 30 minutes of reads alone: %v", err)
		}
	})
}
