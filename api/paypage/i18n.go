package paypage

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kassapay/kassa"
)

// messages are the payment page's words in one language. The script gets the
// ones it needs through data attributes, so it never carries a language of its own.
type messages struct {
	PageTitle, Pay, Amount, Due, Paid, Remaining, TimeLeft, Expired, Questions, Continue string
	Required, Optional, Skip, ChooseToken, Unavailable, SendPayment, SendExactly         string
	ToAddress, OnNetwork, Copy, Copied, OpenWallet, RateLocked, Until, ScanQR, Email     string
	EmailHelp, Save, Receipt, Return, Redirecting, Date, Invoice, Token                  string
	StateWaiting, StateDetected, StatePartial, StatePaid, StateExpired, StateCanceled    string
	DetectedHint, Confirmations, Refresh, Language, ErrTitle, ErrSession, ErrNotFound    string
	NoScriptRefresh, Change, Saved, Answered, Day, Days, FormUnreadable, Generic         string
	StatusUnavailable                                                                    string
	// Receipts are the words for a payment by receiptKey: pending, confirmed,
	// accepted, refunded, dismissed, and why one set aside waits for the shop
	// (late, wrong_token, final_invoice, reorged; review for any other reason).
	Receipts map[string]string
	// NoRate names why a token without a rate cannot be chosen: symbol, network.
	NoRate string
	// NotWatched says why a token on a network Kassa does not watch cannot be chosen.
	NotWatched string
	// SimulatedOnly marks a devnet token on an unwatched network while another is watched.
	SimulatedOnly string
	// Errors are the page's words for API error codes; a code not listed shows the
	// API's own (English) message in English and Generic in other languages.
	Errors map[string]string
}

var english = messages{
	PageTitle: "Pay invoice", Pay: "Pay", Amount: "Amount", Due: "Amount due", Paid: "Paid", Remaining: "Left to pay",
	TimeLeft: "Time left", Expired: "Expired", Questions: "A few questions first", Continue: "Continue",
	Required: "required", Optional: "optional", Skip: "Skip", ChooseToken: "Choose how to pay", Unavailable: "Unavailable",
	SendPayment: "Send the payment", SendExactly: "Send exactly", ToAddress: "To this address", OnNetwork: "Network",
	Copy: "Copy", Copied: "Copied", OpenWallet: "Open in wallet", RateLocked: "Price locked for", Until: "until",
	ScanQR: "Scan with your wallet", Email: "Email for your receipt (optional)",
	EmailHelp: "We send the receipt here once paid.", Save: "Save",
	Receipt: "Receipt", Return: "Back to the shop", Redirecting: "Taking you back to the shop…",
	Date: "Date", Invoice: "Invoice", Token: "Token",
	StateWaiting: "Waiting for your payment", StateDetected: "Payment detected",
	StatePartial: "Partly paid: send the rest in the same token", StatePaid: "Paid. Thank you!",
	StateExpired: "This invoice has expired", StateCanceled: "This invoice was canceled",
	DetectedHint:  "Nothing more to send for now: this page updates once the payment is confirmed.",
	Confirmations: "confirmations", Refresh: "Refresh", Language: "Language", ErrTitle: "This payment link does not work",
	ErrSession:      "The link is incomplete or its signature is wrong. Ask the shop for a new payment link.",
	ErrNotFound:     "This payment session has ended or does not exist. Ask the shop for a new payment link.",
	NoScriptRefresh: "This page updates itself with JavaScript; without it, refresh to see new payments.",
	Change:          "Change", Saved: "Saved.", Answered: "Thank you, your answers are saved.", Day: "day", Days: "days",
	FormUnreadable: "The form could not be read.", Generic: "Something went wrong. Please try again.",
	StatusUnavailable: "The payment status is unavailable",
	Receipts: map[string]string{
		"pending": "pending", "confirmed": "confirmed", "accepted": "accepted by the shop: it counts toward this invoice",
		"refunded":      "refunded to you",
		"dismissed":     "the shop kept this payment without counting it toward this invoice; contact the shop",
		"late":          "arrived after this invoice expired: the shop will review it",
		"wrong_token":   "sent in a token or on a network other than the one chosen: the shop will review it",
		"final_invoice": "arrived after this invoice was closed: the shop will review it",
		"reorged":       "dropped by the network (a chain reorganisation): the shop will review it",
		"review":        "under review by the shop",
	},
	NoRate:        "No rate is available for %s on %s.",
	NotWatched:    "this network is not watched here, so a payment on it would not be seen",
	SimulatedOnly: "Not watched here: only a simulated payment counts on this network.",
}

var spanish = messages{
	PageTitle: "Pagar factura", Pay: "Pagar", Amount: "Importe", Due: "Importe a pagar", Paid: "Pagado", Remaining: "Falta pagar",
	TimeLeft: "Tiempo restante", Expired: "Vencida", Questions: "Antes, unas preguntas", Continue: "Continuar",
	Required: "obligatorio", Optional: "opcional", Skip: "Omitir", ChooseToken: "Elija cómo pagar", Unavailable: "No disponible",
	SendPayment: "Envíe el pago", SendExactly: "Envíe exactamente", ToAddress: "A esta dirección", OnNetwork: "Red",
	Copy: "Copiar", Copied: "Copiado", OpenWallet: "Abrir en la billetera", RateLocked: "Precio fijado durante", Until: "hasta las",
	ScanQR: "Escanee con su billetera", Email: "Correo para el recibo (opcional)",
	EmailHelp: "Le enviaremos el recibo aquí cuando se pague.", Save: "Guardar",
	Receipt: "Recibo", Return: "Volver a la tienda", Redirecting: "Volviendo a la tienda…",
	Date: "Fecha", Invoice: "Factura", Token: "Token",
	StateWaiting: "Esperando su pago", StateDetected: "Pago detectado",
	StatePartial: "Pago parcial: envíe el resto con el mismo token", StatePaid: "Pagado. ¡Gracias!",
	StateExpired: "Esta factura ha vencido", StateCanceled: "Esta factura fue cancelada",
	DetectedHint:  "No hace falta enviar nada más por ahora: esta página se actualiza cuando se confirme el pago.",
	Confirmations: "confirmaciones", Refresh: "Actualizar", Language: "Idioma", ErrTitle: "Este enlace de pago no funciona",
	ErrSession:      "El enlace está incompleto o su firma es incorrecta. Pida a la tienda un enlace nuevo.",
	ErrNotFound:     "Esta sesión de pago terminó o no existe. Pida a la tienda un enlace nuevo.",
	NoScriptRefresh: "Esta página se actualiza con JavaScript; sin él, actualícela para ver pagos nuevos.",
	Change:          "Cambiar", Saved: "Guardado.", Answered: "Gracias, sus respuestas están guardadas.", Day: "día", Days: "días",
	FormUnreadable: "No se pudo leer el formulario.", Generic: "Algo salió mal. Inténtelo de nuevo.",
	StatusUnavailable: "El estado del pago no está disponible",
	Receipts: map[string]string{
		"pending": "pendiente", "confirmed": "confirmado", "accepted": "aceptado por la tienda: cuenta para esta factura",
		"refunded":      "reembolsado a usted",
		"dismissed":     "la tienda se quedó este pago sin contarlo para esta factura; contacte con la tienda",
		"late":          "llegó después de que venciera esta factura: la tienda lo revisará",
		"wrong_token":   "enviado con un token o en una red distintos de los elegidos: la tienda lo revisará",
		"final_invoice": "llegó después de que se cerrara esta factura: la tienda lo revisará",
		"reorged":       "la red lo descartó (una reorganización de la cadena): la tienda lo revisará",
		"review":        "en revisión por la tienda",
	},
	NoRate:        "No hay cotización disponible para %s en %s.",
	NotWatched:    "esta red no se vigila aquí, así que un pago en ella no se vería",
	SimulatedOnly: "No se vigila aquí: en esta red solo cuenta un pago simulado.",
	Errors: map[string]string{
		"answers_required":     "Responda primero las preguntas obligatorias.",
		"missing_response":     "Responda las preguntas obligatorias.",
		"invalid_response":     "Una respuesta no tiene el formato esperado.",
		"unknown_question":     "Las respuestas no corresponden a las preguntas de esta factura.",
		"duplicate_response":   "Las respuestas no corresponden a las preguntas de esta factura.",
		"no_questions":         "Esta factura no tiene preguntas.",
		"invalid_token":        "Elija uno de los tokens de la lista.",
		"token_locked":         "Esta factura está pagada en parte: pague el resto con el mismo token.",
		"rate_unavailable":     "No hay cotización disponible para este token ahora. Elija otro.",
		"payments_unavailable": "Los pagos no están disponibles ahora.",
		"invalid_email":        "Escriba una dirección de correo válida.",
		"invoice_paid":         "Esta factura ya está pagada.",
		"invoice_expired":      "Esta factura ha vencido.",
		"invoice_canceled":     "Esta factura fue cancelada.",
		"session_not_found":    "Esta sesión de pago terminó o no existe.",
	},
}

// languages are the page's languages, English first (the default).
var languages = []struct{ code, name string }{{"en", "English"}, {"es", "Español"}}

func catalog(lang string) messages {
	if lang == "es" {
		return spanish
	}
	return english
}

// pageLang picks the page language: ?lang= when it names one, else the first
// Accept-Language the page speaks, else English.
func pageLang(r *http.Request) string {
	if l := r.URL.Query().Get("lang"); l == "en" || l == "es" {
		return l
	}
	if l := r.PostFormValue("lang"); l == "en" || l == "es" {
		return l
	}
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag := strings.ToLower(strings.TrimSpace(strings.SplitN(part, ";", 2)[0]))
		switch {
		case strings.HasPrefix(tag, "es"):
			return "es"
		case strings.HasPrefix(tag, "en"):
			return "en"
		}
	}
	return "en"
}

// ErrorText is what the page says about err: its words for the error's code, else
// the API's message in English and a general sentence in other languages.
func (m messages) ErrorText(err error) string {
	e := kassa.AsError(err)
	if t, ok := m.Errors[e.Code]; ok {
		return t
	}
	if m.Errors == nil && e.Kind != kassa.KindInternal {
		return e.Message
	}
	return m.Generic
}

// errorsJSON gives the script the page's words for error codes ("_": any other).
func (m messages) errorsJSON() string {
	all := map[string]string{"_": m.Generic}
	for k, v := range m.Errors {
		all[k] = v
	}
	b, _ := json.Marshal(all)
	return string(b)
}

// Left says how long remains, in whole minutes rounded up: "29 days 23 h",
// "11 h 59 min", "15 min"; Expired once nothing is left. The script counts the
// seconds down in the same words.
func (m messages) Left(d time.Duration) string {
	if d <= 0 {
		return m.Expired
	}
	mins := int((d + time.Minute - 1) / time.Minute)
	days, h, mm := mins/1440, mins/60%24, mins%60
	switch {
	case days > 0:
		return m.DayCount(days) + " " + strconv.Itoa(h) + " h"
	case h > 0:
		return strconv.Itoa(h) + " h " + strconv.Itoa(mm) + " min"
	}
	return strconv.Itoa(mm) + " min"
}

// DayCount is "1 day", "2 days".
func (m messages) DayCount(n int) string {
	if n == 1 {
		return "1 " + m.Day
	}
	return strconv.Itoa(n) + " " + m.Days
}

// StatusText is the status sentence of a page state.
func (m messages) StatusText(state string) string {
	return map[string]string{"waiting": m.StateWaiting, "detected": m.StateDetected, "partial": m.StatePartial,
		"paid": m.StatePaid, "expired": m.StateExpired, "canceled": m.StateCanceled}[state]
}

// receiptKey names what the payor is told about a payment (messages.Receipts):
// its resolution once the shop resolved it, else why it was set aside, else its
// status. pay.js has the same rule for the payments of payment-status.
func receiptKey(status kassa.InvoicePaymentStatus, reason kassa.AttentionReason, resolution kassa.Resolution) string {
	switch {
	case resolution != "":
		return string(resolution)
	case status == kassa.PaymentPending:
		return "pending"
	case status != kassa.PaymentManualRetry: // confirmed, underpaid: counted (a failed settlement is the shop's matter)
		return "confirmed"
	case reason == kassa.AttentionLate, reason == kassa.AttentionWrongToken, reason == kassa.AttentionFinalInvoice,
		reason == kassa.AttentionReorged:
		return string(reason)
	}
	return "review"
}

// ReceiptText is what the payor is told about a payment.
func (m messages) ReceiptText(status kassa.InvoicePaymentStatus, reason kassa.AttentionReason, resolution kassa.Resolution) string {
	return m.Receipts[receiptKey(status, reason, resolution)]
}

// receiptsJSON gives the script the words for payments.
func (m messages) receiptsJSON() string {
	b, _ := json.Marshal(m.Receipts)
	return string(b)
}
