package payorapi

import (
	"encoding/json"
	"net/http"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/api/httpx"
)

// availableToken is one item of GET /api/v1/payments/available-tokens (docs/api.md 2.6).
type availableToken struct {
	ID                       int64       `json:"id"`
	TokenSymbol              string      `json:"token_symbol"`
	TokenName                string      `json:"token_name"`
	TokenType                string      `json:"token_type"`
	Network                  string      `json:"network"`
	TokenDecimals            int         `json:"token_decimals"`
	TokenAddress             string      `json:"token_address"`
	RequiresMemo             bool        `json:"requires_memo"`
	PhotoURI                 string      `json:"photo_uri"`
	HasSettlementRoute       bool        `json:"has_settlement_route"`
	SupportsStableSettlement bool        `json:"supports_stable_settlement"`
	IsMonitored              bool        `json:"is_monitored"`
	SettlementRate           json.Number `json:"settlement_rate"`
	SettlementCostUSD        json.Number `json:"settlement_cost_usd"`
	IsSameTokenSettlement    bool        `json:"is_same_token_settlement"`
	Tier                     *string     `json:"tier"`
	TierFee                  *string     `json:"tier_fee"`
	AvailabilityStatus       string      `json:"availability_status"`
	RateUpdatedAt            *string     `json:"rate_updated_at"`
	UnavailableReason        *string     `json:"unavailable_reason"`
}

// AvailableTokens serves GET /api/v1/payments/available-tokens: the tokens of the
// invoice's environment with their rates; while the invoice is underpaid, only the
// locked token (docs/api.md 3.1, rule 1). Tokens on watched networks come first
// (payment.Service.WatchedFirst). A token without a rate is listed as
// UNAVAILABLE with its reason, so a page can show it disabled.
func (a *API) AvailableTokens(w http.ResponseWriter, r *http.Request) error {
	inv := sessionInvoice(r.Context())
	out := []availableToken{}
	if a.cfg.Registry == nil || a.cfg.Rates == nil {
		httpx.WriteJSON(w, http.StatusOK, out)
		return nil
	}
	for _, t := range a.cfg.Pay.WatchedFirst(a.cfg.Registry.Tokens(inv.Environment)) {
		if inv.Status == kassa.StatusUnderpaid && inv.LockedTokenID != nil && t.ID != *inv.LockedTokenID {
			continue
		}
		item := availableToken{ID: t.ID, TokenSymbol: t.Symbol, TokenName: t.Name, TokenType: t.Type,
			Network: t.Network, TokenDecimals: t.Decimals, TokenAddress: t.Address, PhotoURI: a.absolute(a.cfg.IconURL(t.IconURI)),
			HasSettlementRoute: t.SettlementRoute, SupportsStableSettlement: t.Stable, IsMonitored: a.cfg.Pay.Watched(t.Environment, t.Network),
			SettlementRate: "0", SettlementCostUSD: "0", IsSameTokenSettlement: t.Stable,
			AvailabilityStatus: "AVAILABLE"}
		if usd, ok := a.cfg.Pay.SettlementCost(r.Context(), t); ok {
			// Display only, like the rate: the operator's gas per settled receipt.
			item.SettlementCostUSD = json.Number(usd.FloatString(6))
		}
		rate, err := a.cfg.Rates.Rate(r.Context(), t)
		if err != nil {
			reason := kassa.AsError(err).Message
			item.AvailabilityStatus, item.UnavailableReason = "UNAVAILABLE", &reason
		} else {
			// The rate is shown as a JSON number with 8 decimals: display only,
			// never used for arithmetic (quotes use the exact rational).
			item.SettlementRate = json.Number(rate.USDPerToken.FloatString(8))
			updated := kassa.FormatTime(rate.UpdatedAt)
			item.RateUpdatedAt = &updated
		}
		out = append(out, item)
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// absolute turns a path served by Kassa into a URL under the public address.
func (a *API) absolute(uri string) string {
	if len(uri) > 0 && uri[0] == '/' {
		return a.cfg.PublicURL + uri
	}
	return uri
}
