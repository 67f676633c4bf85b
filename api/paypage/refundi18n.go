package paypage

import "github.com/kassapay/kassa"

// refundMessages are the refund claim page's words in one language. Sentences
// with %s take, in order, what their comment names.
type refundMessages struct {
	PageTitle, Language, ErrTitle, ErrNotFound, Generic, FormUnreadable, CrossOrigin, TooMany string
	Amount, Value, OnNetwork, Shop, Address, Transaction, Refresh, NoScriptRefresh, Saved     string
	EnterTitle, AddressLabel, AddressHelp, ConfirmCheck, Submit, ConfirmNeeded                string
	// Explain (network, symbol) and Warn (symbol, network) say which address to enter.
	Explain, Warn string
	// ValidUntil (date) says until when the link takes an address.
	ValidUntil string
	// Lapsed (shop) says the link ended before an address was given.
	Lapsed string
	// States are the status sentences by page state; Failed and Canceled take the shop.
	StateClaim, StatePending, StateSent, StateConfirmed, StateFailed, StateCanceled string
	// Hints say what happens next, by state.
	HintPending, HintSent, HintConfirmed string
	// Errors are the page's words for error codes.
	Errors map[string]string
}

var refundEnglish = refundMessages{
	PageTitle: "Your refund", Language: "Language", ErrTitle: "This refund link does not work",
	ErrNotFound:    "This refund link is wrong or incomplete. Open the link the shop sent you again, or ask the shop for it.",
	Generic:        "Something went wrong. Please try again.",
	FormUnreadable: "The form could not be read.", CrossOrigin: "This form can only be sent from this page.",
	TooMany: "Too many attempts. Wait a minute, then try again.",
	Amount:  "Refund", Value: "Amount", OnNetwork: "Network", Shop: "From", Address: "To your address",
	Transaction: "Transaction", Refresh: "Refresh",
	NoScriptRefresh: "This page updates itself every few seconds.", Saved: "Thank you: your address is saved.",
	EnterTitle: "Where should we send it?", AddressLabel: "Your address on %s",
	AddressHelp:  "0x followed by 40 characters. Copy it from your wallet; do not type it.",
	ConfirmCheck: "I checked the address: it is mine, on %s, and it can receive %s.",
	Submit:       "Send my refund here", ConfirmNeeded: "Tick the box to confirm you checked the address.",
	Explain: "Enter an address on %s that you control, in a wallet that can hold %s.",
	Warn: "Do not enter an exchange's deposit address unless that exchange accepts %s on %s. " +
		"A refund sent to a wrong address cannot be taken back.",
	ValidUntil:     "This link takes an address until %s.",
	Lapsed:         "This refund link has ended before an address was given. Contact %s to receive your refund.",
	StateClaim:     "Your refund is ready: tell us where to send it",
	StatePending:   "Your refund is on its way to your address",
	StateSent:      "Your refund was sent: the network is confirming it",
	StateConfirmed: "Your refund has arrived",
	StateFailed:    "Your refund could not be sent. Contact %s.", StateCanceled: "%s canceled this refund. Contact the shop with any question.",
	HintPending:   "It is sent shortly; this page shows the transaction then.",
	HintSent:      "This usually takes a few minutes.",
	HintConfirmed: "The money is at the address below.",
	Errors: map[string]string{
		"invalid_address":          "This is not an address: it must be 0x followed by 40 letters a–f and digits.",
		"invalid_address_checksum": "This address has a typing error (its mixed capital letters do not match). Copy it again from your wallet.",
	},
}

var refundSpanish = refundMessages{
	PageTitle: "Su reembolso", Language: "Idioma", ErrTitle: "Este enlace de reembolso no funciona",
	ErrNotFound:    "Este enlace de reembolso es incorrecto o está incompleto. Abra de nuevo el enlace que le envió la tienda, o pídaselo.",
	Generic:        "Algo salió mal. Inténtelo de nuevo.",
	FormUnreadable: "No se pudo leer el formulario.", CrossOrigin: "Este formulario solo se puede enviar desde esta página.",
	TooMany: "Demasiados intentos. Espere un minuto e inténtelo de nuevo.",
	Amount:  "Reembolso", Value: "Importe", OnNetwork: "Red", Shop: "De", Address: "A su dirección",
	Transaction: "Transacción", Refresh: "Actualizar",
	NoScriptRefresh: "Esta página se actualiza sola cada pocos segundos.", Saved: "Gracias: su dirección está guardada.",
	EnterTitle: "¿Dónde se lo enviamos?", AddressLabel: "Su dirección en %s",
	AddressHelp:  "0x seguido de 40 caracteres. Cópiela de su billetera; no la escriba a mano.",
	ConfirmCheck: "Revisé la dirección: es mía, en %s, y puede recibir %s.",
	Submit:       "Enviar mi reembolso aquí", ConfirmNeeded: "Marque la casilla para confirmar que revisó la dirección.",
	Explain: "Escriba una dirección en %s que usted controle, en una billetera que pueda recibir %s.",
	Warn: "No use la dirección de depósito de un exchange salvo que ese exchange acepte %s en %s. " +
		"Un reembolso enviado a una dirección equivocada no se puede recuperar.",
	ValidUntil:     "Este enlace acepta una dirección hasta el %s.",
	Lapsed:         "Este enlace de reembolso terminó sin que se diera una dirección. Contacte con %s para recibir su reembolso.",
	StateClaim:     "Su reembolso está listo: díganos adónde enviarlo",
	StatePending:   "Su reembolso va camino de su dirección",
	StateSent:      "Su reembolso fue enviado: la red lo está confirmando",
	StateConfirmed: "Su reembolso ha llegado",
	StateFailed:    "No se pudo enviar su reembolso. Contacte con %s.", StateCanceled: "%s canceló este reembolso. Contacte con la tienda si tiene preguntas.",
	HintPending:   "Se envía en breve; esta página mostrará entonces la transacción.",
	HintSent:      "Suele tardar unos minutos.",
	HintConfirmed: "El dinero está en la dirección de abajo.",
	Errors: map[string]string{
		"invalid_address":          "Esto no es una dirección: debe ser 0x seguido de 40 letras a–f y dígitos.",
		"invalid_address_checksum": "Esta dirección tiene un error (sus mayúsculas no coinciden). Cópiela de nuevo de su billetera.",
	},
}

func refundCatalog(lang string) refundMessages {
	if lang == "es" {
		return refundSpanish
	}
	return refundEnglish
}

// ErrorText is what the claim page says about err: its words for the error's
// code, else a general sentence (the page never shows the API's English message
// in Spanish).
func (m refundMessages) ErrorText(err error) string {
	e := kassa.AsError(err)
	if t, ok := m.Errors[e.Code]; ok {
		return t
	}
	if e.Kind == kassa.KindRateLimited {
		return m.TooMany
	}
	return m.Generic
}
