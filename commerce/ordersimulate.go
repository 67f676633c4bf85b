package commerce

import (
	"net/url"
	"strings"

	"github.com/kassapay/kassa"
)

// SimulateTargets are the stages the devnet simulate endpoint can move an order to.
var SimulateTargets = []OrderStatus{OrderPaymentConfirmed, OrderPaymentSettled, OrderPlaced, OrderShipped,
	OrderDeliveryConfirmed, OrderFailed, OrderCancelled, OrderRefunded}

// CheckSimulate checks a simulate request: a known target; a wallet address in EVM
// form when the network is "bsc" (or any EVM network Kassa knows by name); tracking
// URLs that are absolute http(s) URLs.
func CheckSimulate(r SimulateRequest) error {
	if r.TransitionTo == "" {
		return kassa.Invalidf("transitionTo", "missing_param", "Missing required parameter: transitionTo.")
	}
	known := false
	for _, t := range SimulateTargets {
		known = known || t == r.TransitionTo
	}
	if !known {
		names := make([]string, len(SimulateTargets))
		for i, t := range SimulateTargets {
			names[i] = string(t)
		}
		return kassa.Invalidf("transitionTo", "invalid_transition_target", "transitionTo must be one of %s.", strings.Join(names, ", "))
	}
	if r.WalletNetwork != nil && (len(*r.WalletNetwork) > 64 || !PlainText(*r.WalletNetwork)) {
		return kassa.Invalidf("walletNetwork", "invalid_wallet_network", "walletNetwork must be a network name of at most 64 characters.")
	}
	if r.WalletAddress != nil {
		network := ""
		if r.WalletNetwork != nil {
			network = strings.ToLower(*r.WalletNetwork)
		}
		if network == "bsc" || strings.HasPrefix(network, "bsc-") || strings.HasPrefix(network, "ethereum") || network == "" {
			if err := kassa.CheckEVMAddress("walletAddress", *r.WalletAddress); err != nil {
				return err
			}
		} else if len(*r.WalletAddress) > 128 || !PlainText(*r.WalletAddress) {
			return kassa.Invalidf("walletAddress", "invalid_wallet_address", "walletAddress must be at most 128 characters.")
		}
	}
	if t := r.Tracking; t != nil {
		for _, u := range []struct{ param, v string }{
			{"tracking.carrierTrackingUrl", t.CarrierTrackingURL}, {"tracking.retailerTrackingUrl", t.RetailerTrackingURL},
		} {
			if u.v == "" {
				continue
			}
			p, err := url.Parse(u.v)
			if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
				return kassa.Invalidf(u.param, "invalid_url", "%s must be an absolute http(s) URL.", u.param)
			}
		}
	}
	return nil
}

// PlainText reports whether s is valid UTF-8 text without NUL or other control
// characters: what names, ids and queries may hold.
func PlainText(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			return false
		}
	}
	return true
}
