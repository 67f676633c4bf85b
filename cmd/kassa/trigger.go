package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"kassa"
)

// triggers are the events "kassa trigger" can cause, each with the devnet steps
// that make it happen (other events of those steps come along).
var triggers = map[string][]string{
	kassa.EventInvoiceCreated:          {"create"},
	kassa.EventInvoiceUpdated:          {"create", "cancel"},
	kassa.EventInvoiceCanceled:         {"create", "cancel"},
	kassa.EventInvoicePaid:             {"create", "pay"},
	kassa.EventInvoiceExpired:          {"create-expiring"},
	kassa.EventPaymentCreated:          {"create", "pay-pending"},
	kassa.EventPaymentUpdated:          {"create", "pay"},
	kassa.EventInvoicePaidAfterExpired: {"create-expiring", "wait-expired", "pay"},
}

func triggerNames() string {
	names := make([]string, 0, len(triggers))
	for n := range triggers {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// trigger runs "kassa trigger EVENT": it creates the devnet objects whose changes
// emit EVENT (with the events that come with them), through the API of a running
// kassa, like "stripe trigger".
func trigger(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c clientFlags
	fs := newFlagSet("kassa trigger", stderr)
	c.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: kassa trigger EVENT [--url URL] [--api-key KEY]\nEVENT is one of: %s\n", triggerNames())
		fs.PrintDefaults()
	}
	// The event may come before or after the flags.
	var event string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		event, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if event == "" && fs.NArg() > 0 {
		event = fs.Arg(0)
	}
	steps, ok := triggers[event]
	if !ok {
		return fmt.Errorf("unknown event %q; one of: %s", event, triggerNames())
	}
	if err := c.check(); err != nil {
		return err
	}
	if !strings.HasPrefix(c.apiKey, "kassa_devnet_merchant_") {
		return fmt.Errorf("kassa trigger needs a devnet merchant key: it makes devnet invoices and payments")
	}
	var id string
	for _, step := range steps {
		if err := runStep(ctx, &c, step, &id, stdout); err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
	}
	fmt.Fprintf(stdout, "Trigger succeeded: %s on invoice %s. See it with kassa listen or GET /api/v1/events.\n", event, id)
	return nil
}

// runStep runs one trigger step on the invoice *id (set by the create steps).
func runStep(ctx context.Context, c *clientFlags, step string, id *string, stdout io.Writer) error {
	idem := map[string]string{"Idempotency-Key": kassa.NewUUID()}
	var inv struct {
		InvoiceID string `json:"invoice_id"`
		ID        string `json:"id"`
		Status    string `json:"status"`
	}
	switch step {
	case "create", "create-expiring":
		body := map[string]any{"amount_usd": 10, "description": "kassa trigger"}
		if step == "create-expiring" {
			body["expires_in"] = 1000
		}
		if err := c.do(ctx, "POST", "/api/v1/invoices", idem, body, &inv); err != nil {
			return err
		}
		*id = inv.InvoiceID
		fmt.Fprintf(stdout, "Created invoice %s\n", *id)
	case "cancel":
		if err := c.do(ctx, "POST", "/api/v1/invoices/"+*id+"/cancel", nil, nil, nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Canceled invoice %s\n", *id)
	case "pay", "pay-pending":
		body := map[string]any{"status": "confirmed"}
		if step == "pay-pending" {
			body["status"] = "pending"
		}
		if err := c.do(ctx, "POST", "/api/v1/devnet/invoices/"+*id+"/payments", nil, body, nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Paid invoice %s on devnet (%s)\n", *id, body["status"])
	case "wait-expired":
		return waitExpired(ctx, c, *id, stdout)
	}
	return nil
}

// waitExpired polls the invoice until it reads as expired (at most a minute).
func waitExpired(ctx context.Context, c *clientFlags, id string, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		var inv struct{ Status string }
		if err := c.do(ctx, "GET", "/api/v1/invoices/"+id, nil, nil, &inv); err != nil {
			return err
		}
		if inv.Status == string(kassa.StatusExpired) {
			fmt.Fprintf(stdout, "Invoice %s expired\n", id)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("invoice %s did not expire in time", id)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
