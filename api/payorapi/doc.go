// Package payorapi is the payor API: the endpoints a payment page calls with the
// invoice's payment session (x-session-token and its x-signature), under
// /api/v1/payments, and the verify endpoint /api/v1/invoice/{invoiceId}/verify,
// which also admits merchant credentials.
//
//   - payor.go: the session check (Session), the payor's view of the invoice, the
//     payment status and the receipt email;
//   - form.go: the invoice's questions and the payor's answers;
//   - availabletokens.go: the tokens the payor may pay with, with their rates;
//   - paymentaddress.go: the deposit address and quote of the chosen token;
//   - verify.go: a payment status check by session or merchant credential
//     (payment.Service.Verify decides).
//
// Quotes and payment statuses come from package payment; package api lists the
// routes.
package payorapi
