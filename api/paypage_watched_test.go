package api_test

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api"
	"github.com/kassapay/kassa/store/storetest"
)

// watchingChain is a chain that watches the named networks (of any
// environment), as kassa serve --dev watches the dev chain.
type watchingChain []string

func (w watchingChain) Watched(_ kassa.Environment, network string) bool {
	return slices.Contains(w, network)
}

func (watchingChain) VerifyTransaction(context.Context, *kassa.Invoice, string, string) error {
	return kassa.Invalidf("network", "network_not_watched", "not in this test")
}

// withWatched makes the payment service watch networks.
func withWatched(networks ...string) func(*api.Config) {
	return func(c *api.Config) { c.Pay.Chain = watchingChain(networks) }
}

// TestPayorTokensWatchedFirst: with the dev chain watched (as in --dev), the
// available tokens and the payment page list its tokens first; the page marks
// the devnet tokens of networks nobody watches "not watched here" (they are
// still paid by simulation), while the API keeps every token and field.
func TestPayorTokensWatchedFirst(t *testing.T) {
	for _, tc := range []struct {
		name    string
		watched []string
		first   string // the first token's network
		marked  bool   // the page marks the unwatched tokens
	}{
		{"dev chain watched", []string{"devchain"}, "devchain", true},
		{"nothing watched", nil, "bsc-testnet", false}, // devnet by simulation only: registry order, no marks
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, storetest.SQLiteConfig(t), withWatched(tc.watched...))
			m := e.newMerchant(false)
			created := m.createInvoice(`{"amount_usd": 10}`)
			r := e.do(request{method: "GET", path: "/api/v1/payments/available-tokens", headers: session(created)})
			expectStatus(t, r, 200)
			var tokens []map[string]any
			if err := json.Unmarshal(r.body, &tokens); err != nil || len(tokens) != 9 {
				t.Fatalf("available tokens %s", r.body)
			}
			var networks []string
			for _, tok := range tokens {
				networks = append(networks, tok["network"].(string))
				if tok["availability_status"] != "AVAILABLE" || tok["is_monitored"] != slices.Contains(tc.watched, tok["network"].(string)) {
					t.Errorf("token %v: %v, is_monitored %v", tok["id"], tok["availability_status"], tok["is_monitored"])
				}
			}
			if networks[0] != tc.first {
				t.Errorf("available tokens' networks %v, want %s first", networks, tc.first)
			}
			if tc.watched != nil && !slices.Equal(networks[:3], []string{"devchain", "devchain", "devchain"}) {
				t.Errorf("available tokens' networks %v, want the dev chain's three first", networks)
			}

			u, _ := url.Parse(created["payment_url"].(string))
			_, page := e.pageReq("GET", u.RequestURI(), nil, nil)
			radios := regexp.MustCompile(`<input type="radio" name="token_id" value="(\d+)"( disabled)?`).FindAllStringSubmatch(page, -1)
			if len(radios) != 9 {
				t.Fatalf("%d token choices on the page\n%s", len(radios), page)
			}
			wantFirst := map[string]string{"devchain": "7", "bsc-testnet": "1"}[tc.first]
			if radios[0][1] != wantFirst || radios[0][2] != "" {
				t.Errorf("the page's first token %q, want %s offered", radios[0][0], wantFirst)
			}
			for _, r := range radios {
				if r[2] != "" { // every devnet token can still be chosen
					t.Errorf("token %s is disabled", r[1])
				}
			}
			if got := strings.Count(page, "Not watched here: only a simulated payment counts"); got != map[bool]int{true: 6}[tc.marked] {
				t.Errorf("the page marks %d tokens \"not watched here\", want %d", got, map[bool]int{true: 6}[tc.marked])
			}
		})
	}
}
