// Package paypage is the hosted payment page (/pay/{invoiceId}?session=…&signature=…).
// It is rendered on the server, so amount, address and status show without
// JavaScript; its forms post back here, and pay.js makes the same changes through
// the payor API and follows the invoice live. It knows the payor only by the
// payment session.
//
//   - page.go: the session check, rendering, the error page and the forms;
//   - view.go: what the page shows, computed from the invoice;
//   - i18n.go: its words in English and Spanish;
//   - qr.go: the QR code of the quote shown;
//   - events.go: Server-Sent Events with the payment status;
//   - refund.go, refundview.go, refundi18n.go: the refund claim page
//     (/refund/{refundId}?t=…), where a payor gives a refund's address and
//     follows it, known only by its claim token;
//   - assets.go and assets/: the templates, styles, script and token icons,
//     built into the binary and served under content-hashed URLs.
//
// Quotes and payment statuses come from package payment; package api lists the
// routes.
package paypage
