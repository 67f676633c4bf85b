package settlement_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"testing"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/registry"
	"github.com/kassapay/kassa/settlement"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// flaky settles everything but the receipts it is told to fail, and notes where
// each job was sent.
type flaky struct {
	fail map[string]bool
	to   map[string]string
}

func (f flaky) Settle(ctx context.Context, job kassa.SettlementJob) (string, error) {
	f.to[job.ReceiptID] = job.To
	if f.fail[job.ReceiptID] {
		return "", errors.New("node unreachable")
	}
	return settlement.Devnet{}.Settle(ctx, job)
}

// shop is a merchant with a devnet settlement target, ready to be paid.
type shop struct {
	db     *store.DB
	m      *kassa.Merchant
	target *kassa.Settlement
	n      int
}

// newShop opens a store on cfg with a merchant settling devnet to a USDT address.
func newShop(t *testing.T, cfg store.Config) *shop {
	t.Helper()
	ctx := context.Background()
	db := storetest.Open(t, cfg)
	m, err := db.CreateMerchant(ctx, kassa.MerchantCreate{Name: "Shop", Email: "s@example.com", Password: "correct horse"})
	must(t, err)
	target := &kassa.Settlement{Network: "bsc-testnet", TokenSymbol: "USDT", Address: "0x52908400098527886E0F7030069857D2E4169EE7"}
	_, err = db.UpdateMerchant(ctx, m.ID, kassa.MerchantUpdate{Settlement: map[kassa.Environment]*kassa.Settlement{kassa.Devnet: target}})
	must(t, err)
	return &shop{db: db, m: m, target: target}
}

// pay creates an invoice (changed by mod) and pays it with token, confirmed or not.
func (s *shop) pay(t *testing.T, token int64, confirmed bool, mod ...func(*kassa.InvoiceCreate)) *kassa.InvoicePayment {
	t.Helper()
	ctx := context.Background()
	s.n++
	c := kassa.InvoiceCreate{Amount: 1000}
	for _, f := range mod {
		f(&c)
	}
	p := kassa.Principal{MerchantID: s.m.ID, Environment: kassa.Devnet, Scope: kassa.ScopeMerchant}
	inv, _, err := s.db.CreateInvoice(ctx, p, c, nil)
	must(t, err)
	r, _, err := s.db.IngestPayment(ctx, kassa.PaymentInput{MerchantID: s.m.ID, InvoiceID: inv.ID, Network: "bsc-testnet",
		TxHash: fmt.Sprintf("0x%064d", s.n), TokenID: token, FromAddress: s.target.Address,
		AmountUnits: big.NewInt(1000), AmountUSD: 1000, Confirmations: 3, Confirmed: confirmed})
	must(t, err)
	return r
}

// settlementOf is a receipt's settlement status as the API reads it.
func (s *shop) settlementOf(t *testing.T, receiptID string) kassa.SettlementStatus {
	t.Helper()
	rs, err := s.db.InvoicePayments(context.Background(), s.m.ID, invoiceOf(t, s.db, s.m.ID, receiptID), 10)
	must(t, err)
	return rs[0].Settlement
}

func TestWorker(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		ctx := context.Background()
		s := newShop(t, cfg)
		db, m, target := s.db, s.m, s.target
		override := "0x0000000000000000000000000000000000000001"
		pay := func(token int64, confirmed bool, mod ...func(*kassa.InvoiceCreate)) *kassa.InvoicePayment {
			t.Helper()
			return s.pay(t, token, confirmed, mod...)
		}
		ok1, ok2, bad, pending, native := pay(1, true), pay(2, true), pay(1, true), pay(1, false), pay(3, true)
		routed := pay(1, true, func(c *kassa.InvoiceCreate) { c.ReceiverOverrideEnable, c.ReceiverOverrideAddress = true, &override })
		exec := flaky{fail: map[string]bool{bad.ID: true}, to: map[string]string{}}
		w := &settlement.Worker{Store: db, Registry: registry.Default(), Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Executors: map[kassa.Environment]kassa.SettlementExecutor{kassa.Devnet: exec}}
		handled, err := w.RunOnce(ctx)
		must(t, err)
		if handled != 5 {
			t.Fatalf("handled %d receipts, want 5 (the pending one waits)", handled)
		}
		if exec.to[routed.ID] != override || exec.to[ok1.ID] != target.Address {
			t.Fatalf("destinations %v: the override must win over the merchant's target", exec.to)
		}
		want := map[string]kassa.SettlementStatus{ok1.ID: kassa.SettlementSettled, ok2.ID: kassa.SettlementSettled,
			bad.ID: kassa.SettlementFailed, pending.ID: kassa.SettlementPending, native.ID: kassa.SettlementManual,
			routed.ID: kassa.SettlementSettled}
		for id, st := range want {
			rs, err := db.InvoicePayments(ctx, m.ID, invoiceOf(t, db, m.ID, id), 10)
			must(t, err)
			if rs[0].Settlement != st || (st == kassa.SettlementSettled) != (rs[0].SettlementTxHash != nil) {
				t.Errorf("receipt %s: settlement %s (tx %v), want %s", id, rs[0].Settlement, rs[0].SettlementTxHash, st)
			}
		}
		if handled, err = w.RunOnce(ctx); err != nil || handled != 0 {
			t.Fatalf("second round handled %d (%v), want 0", handled, err)
		}
	})
}

// invoiceOf finds the invoice of a receipt by scanning the merchant's invoices.
func invoiceOf(t *testing.T, db *store.DB, merchantID int64, receiptID string) string {
	t.Helper()
	invs, _, err := db.Invoices(context.Background(), kassa.InvoiceFilter{MerchantID: merchantID, Limit: 100})
	must(t, err)
	for _, inv := range invs {
		rs, err := db.InvoicePayments(context.Background(), merchantID, inv.ID, 10)
		must(t, err)
		for _, r := range rs {
			if r.ID == receiptID {
				return inv.ID
			}
		}
	}
	t.Fatalf("no invoice has receipt %s", receiptID)
	return ""
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
