package store_test

import (
	"slices"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// descriptionCorpus holds the descriptions the search is checked on: case, LIKE's
// metacharacters, quotes, non-ASCII letters (whose case SQLite's LIKE does not
// fold), letters that change length when folded, and text shorter than a trigram.
var descriptionCorpus = []string{
	"Blue MUG, 100% ceramic", "blue mug", "BLUE mug too", "Ab", "ab", "a",
	`a_b c%d e\f`, "a-b c.d e/f", `100\% sure`,
	"Café Crème", "CAFÉ CRÈME", "café crème", "cafe creme",
	"Übergröße Straße", "ÜBERGRÖSSE STRASSE", "İstanbul trip", "istanbul trip",
	"ΣΊΣΥΦΟΣ", "σίσυφος", "ǅemal", "日本語のテキスト", "🍵 tea set", `quote "double" it`,
	"tab\there", "new\nline", "   spaced   out   ", "", "x",
	"a long description that goes on and on about a teapot and its lid",
}

// descriptionQueries are searched for in descriptionCorpus.
var descriptionQueries = []string{
	"mug", "MUG", "blue mug", "Blue MUG, 100% ceramic", "100%", "1_0", "%", "_", `\`, "a_b", "c%d", `e\f`, `0\%`,
	"ab", "AB", "a", "b", "caf", "café", "CAFÉ", "Café Cr", "crème", "ÈME", "cafe", "übergröße", "grö", "GRÖ",
	"ss", "straße", "STRASSE", "İstanbul", "istanbul", "i̇st", "σίσυφος", "ΣΊΣ", "ίσυ", "日本", "日本語", "本語の",
	"🍵 t", "🍵", `"double"`, `"`, `" it`, "tab\th", "\n", "   ", "d   o", "ǅem", "ǆem", "x y z", "zzz",
	"ue mu", "e, 1", "description that goes on and on about a tea", "description that goes on and on about a cup",
}

// TestDescriptionSearchMatchesScan: a search for a piece of the description finds
// exactly the invoices the scan finds (descriptionLike over every row, no index),
// in the same order and count, on both engines: on PostgreSQL through its trigram
// index where the planner takes it; on SQLite before its index has any invoice,
// half way, caught up, with too many candidates (the scan), with too long an
// unindexed tail (the scan); and after descriptions change, an indexed invoice
// is removed and its rowid reused.
func TestDescriptionSearchMatchesScan(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		f := newFixture(t, cfg)
		other := f.merchant(t, "other@example.com")
		var mine []*kassa.Invoice
		for _, d := range descriptionCorpus {
			mine = append(mine, f.invoice(t, f.m, 1_000, func(c *kassa.InvoiceCreate) { c.Description = &d }))
			f.invoice(t, other, 1_000, func(c *kassa.InvoiceCreate) { c.Description = &d })
			f.clock.Advance(1)
		}
		f.invoice(t, f.m, 1_000, nil) // no description
		check := func(t *testing.T) { t.Helper(); checkSearchMatchesScan(t, f.db, f.m.ID) }
		t.Run("not indexed", check)
		t.Run("half indexed", func(t *testing.T) {
			_, err := f.db.IndexDescriptions(f.ctx, len(descriptionCorpus))
			must(t, err)
			check(t)
		})
		t.Run("indexed", func(t *testing.T) {
			indexAll(t, f.db)
			check(t)
			must(t, store.CheckDescriptionIndex(f.db))
		})
		t.Run("too many candidates", func(t *testing.T) {
			store.SetDescriptionLimits(t, 1, 100_000)
			check(t)
		})
		t.Run("tail too long", func(t *testing.T) {
			for _, d := range descriptionCorpus[:5] {
				f.invoice(t, f.m, 1_000, func(c *kassa.InvoiceCreate) { c.Description = &d })
			}
			store.SetDescriptionLimits(t, 2000, 1)
			check(t)
		})
		t.Run("changed", func(t *testing.T) {
			indexAll(t, f.db)
			store.ExecForTest(t, f.db, "UPDATE invoices SET description = $1 WHERE id = $2", "a zebra crossing", mine[0].ID)
			store.ExecForTest(t, f.db, "UPDATE invoices SET description = NULL WHERE id = $1", mine[1].ID)
			store.ExecForTest(t, f.db, "UPDATE invoices SET description = $1 WHERE description IS NULL AND merchant_id = $2", "was none", f.m.ID)
			got, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Query: "zebra", Limit: 10})
			must(t, err)
			if len(got) != 1 || got[0].ID != mine[0].ID {
				t.Errorf("q zebra found %d invoices, want the changed one", len(got))
			}
			check(t)
			must(t, store.CheckDescriptionIndex(f.db))
		})
		t.Run("not text", func(t *testing.T) { // matches nothing stored, on both engines
			for _, q := range []string{"a\x00bc", "ab\xffcd", "\xfe"} {
				filter := kassa.InvoiceFilter{MerchantID: f.m.ID, Query: q, Limit: 10}
				got, _, err := f.db.Invoices(f.ctx, filter)
				must(t, err)
				n, err := f.db.CountInvoices(f.ctx, filter)
				must(t, err)
				if len(got) != 0 || n != 0 {
					t.Errorf("q %q found %d invoices, counted %d", q, len(got), n)
				}
			}
		})
		t.Run("rowid reused", func(t *testing.T) {
			last := f.invoice(t, f.m, 1_000, func(c *kassa.InvoiceCreate) { c.Description = ptr("the last one") })
			indexAll(t, f.db)
			store.ExecForTest(t, f.db, "DELETE FROM invoices WHERE id = $1", last.ID)
			reused := f.invoice(t, f.m, 1_000, func(c *kassa.InvoiceCreate) { c.Description = ptr("a reused rowid") })
			got, _, err := f.db.Invoices(f.ctx, kassa.InvoiceFilter{MerchantID: f.m.ID, Query: "reused", Limit: 10})
			must(t, err)
			if len(got) != 1 || got[0].ID != reused.ID {
				t.Errorf("q reused found %d invoices, want the new one", len(got))
			}
			check(t)
			must(t, store.CheckDescriptionIndex(f.db))
		})
	})
}

// indexAll runs IndexDescriptions until it has caught up.
func indexAll(t *testing.T, db *store.DB) {
	t.Helper()
	for {
		n, err := db.IndexDescriptions(t.Context(), 7)
		must(t, err)
		if n < 7 {
			return
		}
	}
}

// checkSearchMatchesScan checks that the merchant's search for each of
// descriptionQueries lists and counts exactly the invoices the scan finds, in its
// order.
func checkSearchMatchesScan(t *testing.T, db *store.DB, merchantID int64) {
	t.Helper()
	ctx := t.Context()
	for _, q := range descriptionQueries {
		want := store.ScanDescriptions(t, db, merchantID, q)
		filter := kassa.InvoiceFilter{MerchantID: merchantID, Query: q, Limit: store.MaxListLimit}
		got, _, err := db.Invoices(ctx, filter)
		must(t, err)
		ids := make([]string, len(got))
		for i, inv := range got {
			ids[i] = inv.ID
		}
		if !slices.Equal(ids, want) {
			t.Errorf("q %q found %d invoices, the scan %d:\n%v\n%v", q, len(ids), len(want), ids, want)
		}
		if n, err := db.CountInvoices(ctx, filter); err != nil || n != int64(len(want)) {
			t.Errorf("q %q counted %d (%v), the scan %d", q, n, err, len(want))
		}
	}
}

// TestDescriptionIndexUpgrade: a PostgreSQL database made before migration 0029
// gets the trigram index over the invoices it already holds, and the search still
// finds what the scan finds.
func TestDescriptionIndexUpgrade(t *testing.T) {
	cfg := storetest.PostgresConfig(t)
	f := newFixture(t, cfg)
	for _, d := range descriptionCorpus {
		f.invoice(t, f.m, 1_000, func(c *kassa.InvoiceCreate) { c.Description = &d })
		f.clock.Advance(1)
	}
	// Back to before 0029, as a database made by the version before.
	store.ExecForTest(t, f.db, "DROP INDEX invoices_description_trgm")
	store.ExecForTest(t, f.db, "DELETE FROM schema_migrations WHERE version = 29")
	cfg.Now = f.clock.Now
	upgraded := storetest.Open(t, cfg)
	if v, err := upgraded.MigrationVersions(t.Context()); err != nil || !slices.Contains(v, 29) {
		t.Fatalf("migrations after the upgrade: %v (%v), want 29 among them", v, err)
	}
	if !store.HasIndex(t, upgraded, "invoices_description_trgm") {
		t.Fatal("no invoices_description_trgm after the upgrade")
	}
	checkSearchMatchesScan(t, upgraded, f.m.ID)
}
