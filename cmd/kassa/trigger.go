package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/client"
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
	api, err := c.api()
	if err != nil {
		return err
	}
	var id string
	for _, step := range steps {
		if err := runStep(ctx, api, step, &id, stdout); err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
	}
	fmt.Fprintf(stdout, "Trigger succeeded: %s on invoice %s. See it with kassa listen or GET /api/v1/events.\n", event, id)
	return nil
}

// runStep runs one trigger step on the invoice *id (set by the create steps),
// through the generated API client.
func runStep(ctx context.Context, api *client.ClientWithResponses, step string, id *string, stdout io.Writer) error {
	switch step {
	case "create", "create-expiring":
		req := client.InvoiceCreate{AmountUsd: "10", Description: ptr("kassa trigger")}
		if step == "create-expiring" {
			req.ExpiresIn = ptr(1000)
		}
		r, err := api.CreateInvoiceWithResponse(ctx, &client.CreateInvoiceParams{IdempotencyKey: uuid.New()}, req)
		if err != nil {
			return err
		}
		if err := notOK(r.StatusCode(), r.Body); err != nil {
			return err
		}
		if r.JSON201 == nil {
			return fmt.Errorf("HTTP %d: an answer that is not an invoice: %.200s", r.StatusCode(), r.Body)
		}
		*id = r.JSON201.Invoice.Id.String()
		fmt.Fprintf(stdout, "Created invoice %s\n", *id)
	case "cancel":
		inv, err := uuid.Parse(*id)
		if err != nil {
			return err
		}
		r, err := api.CancelInvoiceWithResponse(ctx, inv, nil)
		if err != nil {
			return err
		}
		if err := notOK(r.StatusCode(), r.Body); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Canceled invoice %s\n", *id)
	case "pay", "pay-pending":
		status := client.DevnetPaymentRequestStatusConfirmed
		if step == "pay-pending" {
			status = client.DevnetPaymentRequestStatusPending
		}
		inv, err := uuid.Parse(*id)
		if err != nil {
			return err
		}
		r, err := api.SimulateDevnetPaymentWithResponse(ctx, inv, nil, client.DevnetPaymentRequest{Status: &status})
		if err != nil {
			return err
		}
		if err := notOK(r.StatusCode(), r.Body); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Paid invoice %s on devnet (%s)\n", *id, status)
	case "wait-expired":
		return waitExpired(ctx, api, *id, stdout)
	}
	return nil
}

// waitExpired polls the invoice until it reads as expired (at most a minute).
func waitExpired(ctx context.Context, api *client.ClientWithResponses, id string, stdout io.Writer) error {
	inv, err := uuid.Parse(id)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		r, err := api.GetInvoiceWithResponse(ctx, inv, nil)
		if err != nil {
			return err
		}
		if err := notOK(r.StatusCode(), r.Body); err != nil {
			return err
		}
		if r.JSON200 == nil {
			return fmt.Errorf("HTTP %d: an answer that is not an invoice: %.200s", r.StatusCode(), r.Body)
		}
		if r.JSON200.Status == client.InvoiceStatusExpired {
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

// ptr is a pointer to v, for the generated client's optional fields.
func ptr[T any](v T) *T { return &v }
