package api

import (
	"net/http"
	"strings"
)

// messages are the payment page's words in one language. The script gets the
// ones it needs through data attributes, so it never carries a language of its own.
type messages struct {
	PageTitle, Pay, Amount, Due, Paid, Remaining, TimeLeft, Expired, Questions, Continue string
	Required, ChooseToken, Unavailable, SendExactly, ToAddress, OnNetwork, Copy, Copied  string
	OpenWallet, RateLocked, ScanQR, Email, EmailHelp, Save, Receipt, Return, Redirecting string
	StateWaiting, StateDetected, StatePartial, StatePaid, StateExpired, StateCanceled    string
	Confirmations, Refresh, Language, ErrTitle, ErrSession, ErrNotFound                  string
	NoScriptRefresh, Change, Saved, Answered                                             string
	ReceiptPending, ReceiptConfirmed, ReceiptReview                                      string
}

var english = messages{
	PageTitle: "Pay invoice", Pay: "Pay", Amount: "Amount", Due: "Amount due", Paid: "Paid", Remaining: "Left to pay",
	TimeLeft: "Time left", Expired: "Expired", Questions: "A few questions first", Continue: "Continue",
	Required: "required", ChooseToken: "Choose how to pay", Unavailable: "Unavailable",
	SendExactly: "Send exactly", ToAddress: "To this address", OnNetwork: "Network", Copy: "Copy", Copied: "Copied",
	OpenWallet: "Open in wallet", RateLocked: "Price locked for", ScanQR: "Scan with your wallet",
	Email: "Email for your receipt (optional)", EmailHelp: "We send the receipt here once paid.", Save: "Save",
	Receipt: "Receipt", Return: "Back to the shop", Redirecting: "Taking you back to the shop…",
	StateWaiting: "Waiting for your payment", StateDetected: "Payment detected, waiting for confirmations",
	StatePartial: "Partly paid: send the rest in the same token", StatePaid: "Paid. Thank you!",
	StateExpired: "This invoice has expired", StateCanceled: "This invoice was canceled",
	Confirmations: "confirmations", Refresh: "Refresh", Language: "Language", ErrTitle: "This payment link does not work",
	ErrSession:      "The link is incomplete or its signature is wrong. Ask the shop for a new payment link.",
	ErrNotFound:     "This payment session has ended or does not exist. Ask the shop for a new payment link.",
	NoScriptRefresh: "This page updates itself with JavaScript; without it, refresh to see new payments.",
	Change:          "Change", Saved: "Saved.", Answered: "Thank you, your answers are saved.",
	ReceiptPending: "pending", ReceiptConfirmed: "confirmed", ReceiptReview: "under review by the shop",
}

var spanish = messages{
	PageTitle: "Pagar factura", Pay: "Pagar", Amount: "Importe", Due: "Importe a pagar", Paid: "Pagado", Remaining: "Falta pagar",
	TimeLeft: "Tiempo restante", Expired: "Vencida", Questions: "Antes, unas preguntas", Continue: "Continuar",
	Required: "obligatorio", ChooseToken: "Elija cómo pagar", Unavailable: "No disponible",
	SendExactly: "Envíe exactamente", ToAddress: "A esta dirección", OnNetwork: "Red", Copy: "Copiar", Copied: "Copiado",
	OpenWallet: "Abrir en la billetera", RateLocked: "Precio fijado durante", ScanQR: "Escanee con su billetera",
	Email: "Correo para el recibo (opcional)", EmailHelp: "Le enviaremos el recibo aquí cuando se pague.", Save: "Guardar",
	Receipt: "Recibo", Return: "Volver a la tienda", Redirecting: "Volviendo a la tienda…",
	StateWaiting: "Esperando su pago", StateDetected: "Pago detectado, esperando confirmaciones",
	StatePartial: "Pago parcial: envíe el resto con el mismo token", StatePaid: "Pagado. ¡Gracias!",
	StateExpired: "Esta factura ha vencido", StateCanceled: "Esta factura fue cancelada",
	Confirmations: "confirmaciones", Refresh: "Actualizar", Language: "Idioma", ErrTitle: "Este enlace de pago no funciona",
	ErrSession:      "El enlace está incompleto o su firma es incorrecta. Pida a la tienda un enlace nuevo.",
	ErrNotFound:     "Esta sesión de pago terminó o no existe. Pida a la tienda un enlace nuevo.",
	NoScriptRefresh: "Esta página se actualiza con JavaScript; sin él, actualícela para ver pagos nuevos.",
	Change:          "Cambiar", Saved: "Guardado.", Answered: "Gracias, sus respuestas están guardadas.",
	ReceiptPending: "pendiente", ReceiptConfirmed: "confirmado", ReceiptReview: "en revisión por la tienda",
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

// StatusText is the status sentence of a page state.
func (m messages) StatusText(state string) string {
	return map[string]string{"waiting": m.StateWaiting, "detected": m.StateDetected, "partial": m.StatePartial,
		"paid": m.StatePaid, "expired": m.StateExpired, "canceled": m.StateCanceled}[state]
}

// ReceiptText names a receipt status for the payor.
func (m messages) ReceiptText(status string) string {
	switch status {
	case "pending":
		return m.ReceiptPending
	case "confirmed", "underpaid":
		return m.ReceiptConfirmed
	}
	return m.ReceiptReview
}
