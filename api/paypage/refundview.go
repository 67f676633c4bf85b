package paypage

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/refund"
)

// refundView is everything the refund claim page shows, computed on the server
// so the page works without JavaScript. It holds only what the payor's view of
// a refund (kassa.Refund.PayorView) carries, and the shop's name.
type refundView struct {
	T       refundMessages
	Lang    string
	Langs   []langLink
	Asset   func(name string) string
	ID      string
	Token   string // the claim token, for the form and the event stream
	PageURL string // this page, token and language included
	Shop    string

	// State is claim (awaiting the address), lapsed (the link ended unused), or
	// the refund's status: pending, sent, confirmed, failed, canceled.
	State      string
	Open       bool // pending or sent: the page follows the refund
	StatusText string
	Hint       string
	Words      string // every state's sentence and hint, JSON, for the script
	Explorer   string // the explorer's base URL for transactions; "" for none

	AmountUSD   string // "$6.00", as kassa.Millis.USD shows it
	AmountToken string // "6 USDT"
	Symbol      string
	Network     string // the network's display name
	ValidUntil  string // the claim link's end, once written out
	Address     string
	TxHash      string
	TxURL       string // the explorer's page of TxHash; "" when its network has none

	Typed  string // the address the payor typed, kept on an error
	Notice string
	Error  string
}

// refundState is the page state of a refund at now.
func refundState(r *kassa.Refund, now time.Time) string {
	switch {
	case r.ClaimLapsed(now):
		return "lapsed"
	case r.Status == kassa.RefundAwaitingAddress:
		return "claim"
	}
	return string(r.Status)
}

// refundPath is the claim page's path for a refund, token and language.
func refundPath(id, token, lang string) string {
	return "/refund/" + id + "?" + url.Values{"t": {token}, "lang": {lang}}.Encode()
}

// buildRefund computes the claim page of c for the payor holding token.
func (p *Page) buildRefund(c *refund.Claim, token, lang string) *refundView {
	t, r := refundCatalog(lang), c.Refund
	v := &refundView{T: t, Lang: lang, Asset: assetURL, ID: r.ID, Token: token, PageURL: refundPath(r.ID, token, lang),
		Shop: c.Shop, State: refundState(r, p.cfg.Now()), AmountUSD: r.AmountUSD.USD(),
		AmountToken: kassa.FormatUnits(r.AmountUnits, r.Decimals) + " " + r.TokenSymbol, Symbol: r.TokenSymbol,
		Network: r.Network, Address: r.Address, TxHash: r.TxHash, ValidUntil: r.ClaimExpires.UTC().Format(shortTime)}
	for _, l := range languages {
		v.Langs = append(v.Langs, langLink{Code: l.code, Name: l.name, URL: refundPath(r.ID, token, l.code), Current: l.code == lang})
	}
	if p.cfg.Registry != nil {
		if n, ok := p.cfg.Registry.Network(r.Environment, r.Network); ok {
			v.Network = n.DisplayName
			if n.ExplorerURL != "" {
				v.Explorer = n.ExplorerURL + "/tx/"
			}
		}
	}
	if v.Explorer != "" && r.TxHash != "" {
		v.TxURL = v.Explorer + r.TxHash
	}
	v.Open = v.State == string(kassa.RefundPending) || v.State == string(kassa.RefundSent)
	words := t.stateWords(c.Shop)
	v.StatusText, v.Hint = words[v.State][0], words[v.State][1]
	b, _ := json.Marshal(words)
	v.Words = string(b)
	return v
}

// stateWords are the status sentence and hint of each page state, the shop
// named where the payor should contact it; the script gets them as JSON.
func (m refundMessages) stateWords(shop string) map[string][2]string {
	return map[string][2]string{
		"claim":     {m.StateClaim, ""},
		"lapsed":    {fmt.Sprintf(m.Lapsed, shop), ""},
		"pending":   {m.StatePending, m.HintPending},
		"sent":      {m.StateSent, m.HintSent},
		"confirmed": {m.StateConfirmed, m.HintConfirmed},
		"failed":    {fmt.Sprintf(m.StateFailed, shop), ""},
		"canceled":  {fmt.Sprintf(m.StateCanceled, shop), ""},
	}
}

// ValidUntilHTML is the sentence saying until when the link takes an address,
// its moment kept on one line.
func (v *refundView) ValidUntilHTML() template.HTML {
	at := `<time class="nowrap">` + template.HTMLEscapeString(v.ValidUntil) + `</time>`
	return template.HTML(fmt.Sprintf(template.HTMLEscapeString(v.T.ValidUntil), at)) // both parts escaped
}

// Sprintf formats one of the page's sentences in the template.
func (v *refundView) Sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
