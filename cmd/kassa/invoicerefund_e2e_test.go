package main

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/devchain"
	"github.com/kassapay/kassa/store"
	"github.com/kassapay/kassa/store/storetest"
)

// TestInvoiceRefundOnChainEndToEnd: on the real binary with the dev chain, an
// invoice paid in USDT with kassa pay is refunded in part to an address the
// merchant gives: the exact USDT units arrive there from the gas wallet, the
// refund is confirmed with its transaction and the invoice says what was
// refunded. Then USDC sent to an invoice locked to USDT is set aside as
// wrong_token and refunded from its deposit address, in USDC.
func TestInvoiceRefundOnChainEndToEnd(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, cfg store.Config) {
		k := startKassa(t, cfg)
		const payor = "0x00000000000000000000000000000000000b0b02"
		payURL, id := pageInvoice(t, k, map[string]any{"amount_usd": 12.5})
		kassaPay(t, k, payURL)
		waitSettled(t, k, id)

		ref := createRefund(t, k, id, map[string]any{"amount_usd": 5, "address": payor, "reason": "one item returned"})
		if ref["status"] != "pending" || ref["amount_token_units"] != "5000000" {
			t.Fatalf("refund %v", ref)
		}
		done := waitRefund(t, k, ref["id"].(string))
		hashes, sum := transfersTo(t, k.chainURL, payor)
		if len(hashes) != 1 || sum.Cmp(big.NewInt(5_000_000)) != 0 || !strings.EqualFold(hashes[0], done["tx_hash"].(string)) {
			t.Fatalf("transfers to the payor %v (%s units), refund %v", hashes, sum, done)
		}
		var inv struct {
			AmountRefunded int64 `json:"amount_refunded"`
		}
		wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices/"+id, map[string]string{"x-api-key": k.merchantKey}, nil, &inv), 200)
		if inv.AmountRefunded != 5000 {
			t.Fatalf("amount_refunded %d", inv.AmountRefunded)
		}

		// USDC to an invoice locked to USDT: set aside, refunded from its deposit address.
		payURL, id = pageInvoice(t, k, map[string]any{"amount_usd": 10})
		var tokens []struct {
			ID      int64  `json:"id"`
			Symbol  string `json:"token_symbol"`
			Network string `json:"network"`
		}
		availableTokens(t, payURL, &tokens)
		ids := map[string]int64{}
		for _, tk := range tokens {
			if tk.Network == "devchain" {
				ids[tk.Symbol] = tk.ID
			}
		}
		if ids["USDT"] == 0 || ids["USDC"] == 0 {
			t.Fatalf("dev chain tokens %+v", tokens)
		}
		s, err := openSession(payURL)
		if err != nil {
			t.Fatal(err)
		}
		var addr struct{ Address string }
		wantStatus(t, call(t, "POST", k.url+"/api/v1/payments/payment-address",
			map[string]string{"X-Session-Token": s.token, "X-Signature": s.signature}, map[string]any{"token_id": ids["USDT"]}, &addr), 200)
		sendUSDC(t, k.chainURL, devchain.Accounts()[7].PrivateKey, addr.Address, big.NewInt(3_000_000))
		wrong := waitPayment(t, k, id, "wrong_token")
		const payor2 = "0x00000000000000000000000000000000000b0b03"
		ref = createRefund(t, k, id, map[string]any{"payment_id": wrong, "address": payor2})
		if ref["token_id"] != float64(ids["USDC"]) || ref["amount_token_units"] != "3000000" {
			t.Fatalf("wrong-token refund %v", ref)
		}
		done = waitRefund(t, k, ref["id"].(string))
		if got := erc20Balance(t, k.chainURL, devchain.USDCAddress, payor2); got.Cmp(big.NewInt(3_000_000)) != 0 {
			t.Fatalf("payor2 holds %s USDC units", got)
		}
		if from := txSender(t, k.chainURL, done["tx_hash"].(string)); !strings.EqualFold(from, addr.Address) {
			t.Fatalf("the refund came from %s, not the deposit address %s", from, addr.Address)
		}
		stopGracefully(t, k)
	})
}

// createRefund posts a refund of invoice id with the merchant key.
func createRefund(t *testing.T, k *instance, id string, body map[string]any) map[string]any {
	t.Helper()
	var out map[string]any
	wantStatus(t, call(t, "POST", k.url+"/api/v1/invoices/"+id+"/refunds",
		map[string]string{"x-api-key": k.merchantKey, "Idempotency-Key": kassa.NewUUID()}, body, &out), http.StatusCreated)
	return out
}

// waitRefund polls a refund until it is confirmed (90 s at most).
func waitRefund(t *testing.T, k *instance, id string) map[string]any {
	t.Helper()
	var r map[string]any
	for end := time.Now().Add(90 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		r = nil
		wantStatus(t, call(t, "GET", k.url+"/api/v1/refunds/"+id, map[string]string{"x-api-key": k.merchantKey}, nil, &r), 200)
		switch r["status"] {
		case "confirmed":
			return r
		case "failed", "canceled":
			t.Fatalf("refund %v", r)
		}
	}
	t.Fatalf("the refund never confirmed: %v", r)
	return nil
}

// waitPayment polls an invoice's payments until one is set aside for reason and
// returns its id.
func waitPayment(t *testing.T, k *instance, id, reason string) string {
	t.Helper()
	for end := time.Now().Add(90 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		var out struct {
			Payments []struct {
				ID     string  `json:"id"`
				Reason *string `json:"attention_reason"`
			} `json:"payments"`
		}
		wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices/"+id+"?expand[]=payments",
			map[string]string{"x-api-key": k.merchantKey}, nil, &out), 200)
		for _, p := range out.Payments {
			if p.Reason != nil && *p.Reason == reason {
				return p.ID
			}
		}
	}
	t.Fatalf("no payment set aside as %s", reason)
	return ""
}

// sendUSDC transfers units of USDC from the account of key to to on the dev chain
// and waits for its receipt.
func sendUSDC(t *testing.T, url, key, to string, units *big.Int) {
	t.Helper()
	sendToken(t, url, key, nil, devchain.USDCAddress, to, units)
}

// sendToken signs, with the account of key, a transfer of units of the ERC-20
// token to to for the chain chainID (nil: the node's), as a wallet would, sends
// it to the node at url, waits for its receipt and returns its hash.
func sendToken(t *testing.T, url, key string, chainID *big.Int, token, to string, units *big.Int) string {
	t.Helper()
	ctx := context.Background()
	c, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pk, err := crypto.HexToECDSA(key)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := c.PendingNonceAt(ctx, crypto.PubkeyToAddress(pk.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if chainID == nil {
		if chainID, err = c.ChainID(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data := append([]byte{0xa9, 0x05, 0x9c, 0xbb}, common.LeftPadBytes(common.HexToAddress(to).Bytes(), 32)...)
	data = append(data, common.LeftPadBytes(units.Bytes(), 32)...)
	contract := common.HexToAddress(token)
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(tip, big.NewInt(100_000_000_000)), Gas: 200_000, To: &contract, Data: data}),
		types.LatestSignerForChainID(chainID), pk)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if r, err := c.TransactionReceipt(ctx, tx.Hash()); err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("the transfer of %s failed", token)
			}
			return tx.Hash().Hex()
		}
	}
	t.Fatalf("the transfer of %s was never mined", token)
	return ""
}

// txSender is the sender of transaction hash on the dev chain at url.
func txSender(t *testing.T, url, hash string) string {
	t.Helper()
	c, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tx, _, err := c.TransactionByHash(context.Background(), common.HexToHash(hash))
	if err != nil {
		t.Fatal(err)
	}
	from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	if err != nil {
		t.Fatal(err)
	}
	return from.Hex()
}
