// Command create-invoice creates an invoice with the generated Go client
// (module github.com/kassapay/kassa/client) and prints its payment page, then reads it back.
//
//	go run ./cmd/kassa serve --dev        # prints a merchant key
//	cd client && KASSA_API_KEY=kassa_devnet_merchant_... go run ./examples/create-invoice -amount 12.50
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/kassapay/kassa/client"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "base URL of kassa")
	amount := flag.String("amount", "10.00", "price in USD")
	description := flag.String("description", "Example order", "what the invoice is for")
	flag.Parse()
	key := os.Getenv("KASSA_API_KEY")
	if key == "" {
		fmt.Fprintln(os.Stderr, "set KASSA_API_KEY to a merchant key (kassa serve --dev prints one)")
		os.Exit(2)
	}
	if err := run(*url, key, *amount, *description); err != nil {
		fmt.Fprintln(os.Stderr, "create-invoice:", err)
		os.Exit(1)
	}
}

func run(url, key, amount, description string) error {
	api, err := client.NewClientWithResponses(url,
		client.WithHTTPClient(&http.Client{Timeout: 30 * time.Second}),
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-Api-Key", key)
			return nil
		}))
	if err != nil {
		return err
	}
	ctx := context.Background()

	// A new Idempotency-Key per invoice: resending the same request with the same
	// key (after a timeout, say) returns the same invoice instead of a second one.
	created, err := api.CreateInvoiceWithResponse(ctx, &client.CreateInvoiceParams{IdempotencyKey: uuid.New()},
		client.InvoiceCreate{AmountUsd: json.Number(amount), Description: &description})
	if err != nil {
		return err
	}
	if created.JSON201 == nil { // any other status: the error body says why
		return fmt.Errorf("HTTP %d: %s", created.StatusCode(), created.Body)
	}
	inv := created.JSON201
	fmt.Printf("invoice %s for $%s: %s\n", inv.InvoiceId, inv.Invoice.AmountDecimal, inv.PaymentUrl)

	got, err := api.GetInvoiceWithResponse(ctx, inv.InvoiceId, nil)
	if err != nil {
		return err
	}
	if got.JSON200 == nil {
		return fmt.Errorf("HTTP %d: %s", got.StatusCode(), got.Body)
	}
	fmt.Printf("status %s, expires %s\n", got.JSON200.Status, got.JSON200.ExpiresAt.Format(time.RFC3339))
	return nil
}
