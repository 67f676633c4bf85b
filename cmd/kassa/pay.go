package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/client"
	"github.com/kassapay/kassa/devchain"
)

// payFlags are kassa pay's flags.
type payFlags struct {
	token, network, amount, key, rpc string
	timeout                          time.Duration
}

// pay pays an invoice as a payor's wallet would: it opens the payment session of
// PAYMENT_URL, locks the token, signs and sends the transfer on the chain's
// JSON-RPC, and prints the transaction hash and each status change until the
// invoice is paid (decisions.md, "Chains").
func pay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := payFlags{}
	fs := newFlagSet("kassa pay", stderr)
	fs.StringVar(&f.token, "token", "USDT", "symbol of the token to pay in")
	fs.StringVar(&f.network, "network", devNetwork, "network of the token")
	fs.StringVar(&f.amount, "amount", "", "USD to pay (default: what the quote asks), e.g. 4.50 for a partial payment")
	fs.StringVar(&f.key, "key", "", "hex private key of the paying account (default: the dev chain's account 0, a public test key)")
	fs.StringVar(&f.rpc, "rpc", "http://"+envOr("KASSA_DEVCHAIN_ADDR", "127.0.0.1:8545"), "JSON-RPC URL of the chain")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Minute, "how long to follow the invoice before giving up")
	withPositional(fs, "kassa pay PAYMENT_URL [flags]", "Pays an invoice as a payor's wallet would: locks the token, sends the transfer, follows the invoice until paid.")
	var target string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		target, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if target == "" && fs.NArg() == 1 {
		target = fs.Arg(0)
	} else if target == "" || fs.NArg() > 0 {
		return errors.New("usage: kassa pay PAYMENT_URL [--token SYMBOL] [--amount USD] [--key HEX]")
	}
	if f.key == "" {
		f.key = devchain.Accounts()[0].PrivateKey
	}
	s, err := openSession(target)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	q, err := s.quote(ctx, f.token, f.network)
	if err != nil {
		return err
	}
	units, err := quotedUnits(q, f.amount)
	if err != nil {
		return err
	}
	if err := checkKey(f.key, int64(q.ChainId)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "paying %s %s on %s to %s\n", kassa.FormatUnits(units, q.TokenDecimals), q.TokenSymbol, q.Network, q.Address)
	hash, err := sendTransfer(ctx, f.rpc, f.key, q, units)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sent transaction %s\n", hash)
	return s.follow(ctx, stdout, hash)
}

// checkKey refuses to sign with a dev chain account's key on any other chain:
// those keys are public, and money sent from them is anyone's (issue 13: no path
// uses the dev chain's public keys outside the dev chain).
func checkKey(key string, chainID int64) error {
	if chainID == devchain.ChainID {
		return nil
	}
	for _, a := range devchain.Accounts() {
		if strings.EqualFold(strings.TrimPrefix(key, "0x"), strings.TrimPrefix(a.PrivateKey, "0x")) {
			return fmt.Errorf("chain %d is not the dev chain: pass --key with your own account's key (the default is a public test key)", chainID)
		}
	}
	return nil
}

// session is a payment session opened from a payment URL, with the generated
// API client sending its headers.
type session struct {
	base, invoiceID, token, signature string
	api                               *client.ClientWithResponses
}

// openSession reads a payment URL: <base>/pay/<invoice>?session=...&signature=...
func openSession(paymentURL string) (*session, error) {
	u, err := url.Parse(paymentURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("%q is not a payment URL", paymentURL)
	}
	prefix, id, ok := strings.Cut(u.Path, "/pay/")
	q := u.Query()
	if !ok || id == "" || q.Get("session") == "" || q.Get("signature") == "" {
		return nil, fmt.Errorf("%q is not a payment URL (want .../pay/INVOICE?session=...&signature=...)", paymentURL)
	}
	s := &session{base: u.Scheme + "://" + u.Host + prefix, invoiceID: strings.Trim(id, "/"),
		token: q.Get("session"), signature: q.Get("signature")}
	s.api, err = client.NewClientWithResponses(s.base, client.WithHTTPClient(newPatientClient(30*time.Second)),
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-Session-Token", s.token)
			r.Header.Set("X-Signature", s.signature)
			return nil
		}))
	return s, err
}

// quote finds the token among the invoice's available tokens and locks it.
func (s *session) quote(ctx context.Context, symbol, network string) (*client.Quote, error) {
	tokens, err := s.api.ListAvailableTokensWithResponse(ctx)
	if err != nil {
		return nil, err
	}
	if err := notOK(tokens.StatusCode(), tokens.Body); err != nil {
		return nil, fmt.Errorf("available tokens: %w", err)
	}
	if tokens.JSON200 == nil {
		return nil, fmt.Errorf("available tokens: HTTP %d: not a token list: %.200s", tokens.StatusCode(), tokens.Body)
	}
	for _, t := range *tokens.JSON200 {
		if strings.EqualFold(t.TokenSymbol, symbol) && t.Network == network {
			q, err := s.api.CreatePaymentAddressWithResponse(ctx, client.PaymentAddressRequest{TokenId: t.Id})
			if err != nil {
				return nil, err
			}
			if err := notOK(q.StatusCode(), q.Body); err != nil {
				return nil, fmt.Errorf("payment address: %w", err)
			}
			if q.JSON200 == nil {
				return nil, fmt.Errorf("payment address: HTTP %d: not a quote: %.200s", q.StatusCode(), q.Body)
			}
			return q.JSON200, nil
		}
	}
	if inv, err := s.api.GetPayorInvoiceWithResponse(ctx); err == nil && inv.JSON200 != nil && inv.JSON200.LockedTokenId != nil {
		for _, t := range *tokens.JSON200 {
			if t.Id == *inv.JSON200.LockedTokenId {
				return nil, fmt.Errorf("the invoice is locked to %s on %s (its first payment chose it): pay the rest with --token %s --network %s",
					t.TokenSymbol, t.Network, t.TokenSymbol, t.Network)
			}
		}
	}
	return nil, fmt.Errorf("the invoice offers no %s on %s", symbol, network)
}

// units is what to send: the quoted amount, or amount USD at the quote's rate.
func quotedUnits(q *client.Quote, amount string) (*big.Int, error) {
	if amount == "" {
		u, ok := new(big.Int).SetString(q.AmountTokenUnits, 10)
		if !ok {
			return nil, fmt.Errorf("bad quoted amount %q", q.AmountTokenUnits)
		}
		return u, nil
	}
	usd, err := kassa.ParseUSD(amount, "amount")
	if err != nil {
		return nil, fmt.Errorf("--amount: %s", kassa.AsError(err).Message)
	}
	rate, ok := new(big.Rat).SetString(q.Rate)
	if !ok || rate.Sign() <= 0 {
		return nil, fmt.Errorf("bad quoted rate %q", q.Rate)
	}
	return kassa.TokenUnits(usd, q.TokenDecimals, rate), nil
}

// follow prints the invoice's status and its payments' confirmations each time
// they change, until the invoice is paid or over, or the transfer hash sent is
// settled for good short of paying it (a partial payment: confirmed, the invoice
// underpaid; money kept for a person: manual_retry).
func (s *session) follow(ctx context.Context, out io.Writer, hash string) error {
	last := ""
	for {
		r, err := s.api.GetPaymentStatusWithResponse(ctx)
		if err != nil {
			return err
		}
		if err := notOK(r.StatusCode(), r.Body); err != nil {
			return fmt.Errorf("payment status: %w", err)
		}
		st := r.JSON200
		if st == nil {
			return fmt.Errorf("payment status: HTTP %d: not a status: %.200s", r.StatusCode(), r.Body)
		}
		line := "invoice " + string(st.Status)
		if len(st.Payments) > 0 {
			p := st.Payments[0]
			line += fmt.Sprintf(", payment %s (%d/%d confirmations)", p.Status, min(p.Confirmations, max(p.ConfirmationsRequired, p.Confirmations)), p.ConfirmationsRequired)
		}
		if line != last {
			fmt.Fprintf(out, "%s  %s\n", time.Now().Format("15:04:05"), line)
			last = line
		}
		switch st.Status {
		case client.InvoiceStatusPaid:
			return nil
		case client.InvoiceStatusExpired, client.InvoiceStatusCanceled:
			return fmt.Errorf("the invoice is %s", st.Status)
		}
		for _, p := range st.Payments {
			if !strings.EqualFold(p.TxHash, hash) {
				continue
			}
			switch p.Status {
			case client.StatusPaymentStatusConfirmed, client.StatusPaymentStatusUnderpaid:
				fmt.Fprintf(out, "the transfer is confirmed; the invoice still wants %s\n", kassa.Millis(st.AmountRemaining).USD())
				return nil
			case client.StatusPaymentStatusManualRetry:
				return fmt.Errorf("the transfer is kept for the shop to review (manual_retry), not counted toward the invoice")
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("gave up waiting: %w", ctx.Err())
		case <-time.After(500 * time.Millisecond): // the payor API's session bucket refills 2 a second
		}
	}
}
