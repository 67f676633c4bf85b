package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/kassapay/kassa/client"
)

// Create an invoice with a merchant API key, then follow its payment page.
func Example() {
	api, err := client.NewClientWithResponses("http://127.0.0.1:8080",
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-Api-Key", "kassa_devnet_merchant_...") // kassa serve --dev prints one
			return nil
		}))
	if err != nil {
		panic(err)
	}
	description := "Order 1042"
	// A new Idempotency-Key per invoice: a retry with the same key returns the
	// same invoice instead of making a second.
	created, err := api.CreateInvoiceWithResponse(context.Background(),
		&client.CreateInvoiceParams{IdempotencyKey: uuid.New()},
		client.InvoiceCreate{AmountUsd: json.Number("12.50"), Description: &description})
	if err != nil {
		panic(err)
	}
	if created.JSON201 == nil { // any other status: the body's code and message say why
		fmt.Printf("HTTP %d: %s\n", created.StatusCode(), created.Body)
		return
	}
	fmt.Println(created.JSON201.PaymentUrl)
}
