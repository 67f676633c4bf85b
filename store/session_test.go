package store_test

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestInvoiceBySession: a session token finds its own invoice and nothing else,
// whether it names its invoice (every token issued now) or is one of the older
// tokens kept as a bare SHA-256, which must work until their sessions end.
func TestInvoiceBySession(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		a, tokenA := f.invoiceWithToken(t)
		b, tokenB := f.invoiceWithToken(t)
		idA, _ := kassa.SessionInvoiceID(tokenA)
		idB, _ := kassa.SessionInvoiceID(tokenB)
		if idA != a.ID || idB != b.ID {
			t.Fatalf("tokens name %s and %s, want %s and %s", idA, idB, a.ID, b.ID)
		}

		// An older token: "ps_" and 52 base32 characters, stored as its SHA-256.
		legacy := "ps_" + kassa.RandomBase32(32)
		if _, ok := kassa.SessionInvoiceID(legacy); ok {
			t.Fatalf("legacy token %s names an invoice", legacy)
		}
		old := f.invoice(t, f.m, 300, nil)
		raw := storetest.RawDB(t, cfg)
		if _, err := raw.Exec("UPDATE invoices SET session_token_hash = $1 WHERE id = $2", kassa.HashSecret(legacy), old.ID); err != nil {
			t.Fatal(err)
		}

		secretB := tokenB[strings.LastIndexByte(tokenB, '_')+1:]
		tests := []struct {
			name  string
			token string
			want  string // invoice id; "" for not found
		}{
			{"own token", tokenA, a.ID},
			{"another's own token", tokenB, b.ID},
			{"legacy token", legacy, old.ID},
			{"A's id with B's secret", tokenA[:strings.LastIndexByte(tokenA, '_')+1] + secretB, ""},
			{"one character of the secret changed", tokenA[:len(tokenA)-1] + flip(tokenA[len(tokenA)-1]), ""},
			{"id in upper case", "ps_" + strings.ToUpper(tokenA[3:35]) + tokenA[35:], ""},
			{"legacy token altered", legacy[:len(legacy)-1] + flip(legacy[len(legacy)-1]), ""},
			{"new token's hash as a legacy token", tokenA[:len(tokenA)-2], ""},
			{"empty", "", ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := f.db.InvoiceBySession(f.ctx, tt.token)
				if tt.want == "" {
					wantErr(t, err, kassa.KindNotFound, "session_not_found")
					return
				}
				if err != nil || got.ID != tt.want {
					t.Fatalf("InvoiceBySession = %v, %v; want %s", got, err, tt.want)
				}
			})
		}
	})
}

// invoiceWithToken creates an invoice of f's merchant and returns its session token.
func (f *fixture) invoiceWithToken(t *testing.T) (*kassa.Invoice, string) {
	t.Helper()
	inv, token, err := f.db.CreateInvoice(f.ctx, principal(f.m), kassa.InvoiceCreate{Amount: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return inv, token
}

// flip returns another character of the token alphabets in c's place.
func flip(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}
