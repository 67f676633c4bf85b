package registry

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/kassapay/kassa"
)

// validate checks f against the rules in the package documentation and rewrites
// ERC-20 addresses into their EIP-55 form.
func validate(f *File) error {
	if len(f.Networks) == 0 {
		return errors.New("registry: no networks")
	}
	type envKey struct {
		env  kassa.Environment
		name string
	}
	networks := map[envKey]kassa.Network{}
	chainIDs := map[kassa.Environment]map[int64]string{}
	indexes := map[kassa.Environment]map[uint32]string{}
	for i, n := range f.Networks {
		where := fmt.Sprintf("registry: networks[%d] (%q, %s)", i, n.Name, n.Environment)
		if err := checkNetwork(n); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		k := envKey{n.Environment, n.Name}
		if _, dup := networks[k]; dup {
			return fmt.Errorf("%s: name repeated in environment %s", where, n.Environment)
		}
		networks[k] = n
		if chainIDs[n.Environment] == nil {
			chainIDs[n.Environment] = map[int64]string{}
			indexes[n.Environment] = map[uint32]string{}
		}
		if other, dup := chainIDs[n.Environment][n.ChainID]; dup {
			return fmt.Errorf("%s: chain_id %d already used by network %q in %s", where, n.ChainID, other, n.Environment)
		}
		chainIDs[n.Environment][n.ChainID] = n.Name
		if other, dup := indexes[n.Environment][n.DerivationIndex]; dup {
			return fmt.Errorf("%s: derivation_index %d already used by network %q in %s", where, n.DerivationIndex, other, n.Environment)
		}
		indexes[n.Environment][n.DerivationIndex] = n.Name
	}

	ids := map[int64]bool{}
	symbols := map[envKey]map[string]bool{}   // per network
	addresses := map[envKey]map[string]bool{} // per network, lower case
	for i := range f.Tokens {
		t := &f.Tokens[i]
		where := fmt.Sprintf("registry: tokens[%d] (id %d, %q on %q)", i, t.ID, t.Symbol, t.Network)
		if t.ID <= 0 {
			return fmt.Errorf("%s: id must be a positive integer", where)
		}
		if ids[t.ID] {
			return fmt.Errorf("%s: id repeated", where)
		}
		ids[t.ID] = true
		if !t.Environment.Valid() {
			return fmt.Errorf("%s: unknown environment %q", where, t.Environment)
		}
		k := envKey{t.Environment, t.Network}
		n, ok := networks[k]
		if !ok {
			return fmt.Errorf("%s: no network %q in environment %s", where, t.Network, t.Environment)
		}
		if err := checkToken(t, n); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if symbols[k] == nil {
			symbols[k], addresses[k] = map[string]bool{}, map[string]bool{}
		}
		if symbols[k][t.Symbol] {
			return fmt.Errorf("%s: symbol repeated on network %q", where, t.Network)
		}
		symbols[k][t.Symbol] = true
		if t.Type == kassa.TokenNative {
			continue // one per network: its symbol is the network's native_symbol
		}
		low := strings.ToLower(t.Address)
		if addresses[k][low] {
			return fmt.Errorf("%s: address %s repeated on network %q", where, t.Address, t.Network)
		}
		addresses[k][low] = true
	}
	return nil
}

func checkNetwork(n kassa.Network) error {
	switch {
	case !n.Environment.Valid():
		return fmt.Errorf("unknown environment %q", n.Environment)
	case !validName(n.Name):
		return errors.New("name must be lower-case letters and digits joined by single hyphens")
	case strings.TrimSpace(n.DisplayName) == "":
		return errors.New("display_name is empty")
	case n.ChainID <= 0:
		return fmt.Errorf("chain_id %d must be positive", n.ChainID)
	case n.Confirmations < 1:
		return fmt.Errorf("confirmations %d must be at least 1", n.Confirmations)
	case strings.TrimSpace(n.NativeSymbol) == "":
		return errors.New("native_symbol is empty")
	}
	if n.BlockTimeMillis < 0 {
		return fmt.Errorf("block_time_ms %d must not be negative", n.BlockTimeMillis)
	}
	for _, u := range n.RPCURLs {
		if err := checkHTTPURL(u); err != nil {
			return fmt.Errorf("rpc_urls: an entry is not an absolute http(s) URL: %w", err)
		}
	}
	if n.ExplorerURL == "" { // a dev chain has no explorer
		return nil
	}
	if err := checkExplorer(n.ExplorerURL); err != nil {
		return fmt.Errorf("explorer_url %q: %w", n.ExplorerURL, err)
	}
	return nil
}

func checkToken(t *kassa.Token, n kassa.Network) error {
	switch {
	case strings.TrimSpace(t.Symbol) == "":
		return errors.New("symbol is empty")
	case strings.TrimSpace(t.Name) == "":
		return errors.New("name is empty")
	case t.Decimals < 0 || t.Decimals > MaxDecimals:
		return fmt.Errorf("decimals %d must be between 0 and %d", t.Decimals, MaxDecimals)
	}
	switch t.Type {
	case kassa.TokenNative:
		if t.Address != "" {
			return errors.New("a native token has no address")
		}
		if t.Symbol != n.NativeSymbol {
			return fmt.Errorf("a native token's symbol must be its network's native_symbol %q", n.NativeSymbol)
		}
	case kassa.TokenERC20:
		if err := kassa.CheckEVMAddress("address", t.Address); err != nil {
			return fmt.Errorf("%s (%q)", kassa.AsError(err).Message, t.Address)
		}
		t.Address = kassa.ChecksumAddress(t.Address)
	default:
		return fmt.Errorf("type %q must be %q or %q", t.Type, kassa.TokenERC20, kassa.TokenNative)
	}
	if t.IconURI != "" && !strings.HasPrefix(t.IconURI, "/") {
		if err := checkHTTPURL(t.IconURI); err != nil {
			return fmt.Errorf("icon_uri %q: must be a path such as /static/tokens/usdt.svg or an absolute URL", t.IconURI)
		}
	}
	if strings.HasPrefix(t.IconURI, "//") {
		return fmt.Errorf("icon_uri %q: a scheme-relative URL is not allowed", t.IconURI)
	}
	return nil
}

// validName reports whether s is lower-case letters and digits joined by single
// hyphens, such as "bsc-testnet".
func validName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

func checkExplorer(s string) error {
	if err := checkHTTPURL(s); err != nil {
		return err
	}
	u, _ := url.Parse(s)
	if strings.HasSuffix(s, "/") || u.RawQuery != "" || u.Fragment != "" || strings.Contains(s, "#") || strings.Contains(s, "?") {
		return errors.New("must have no trailing slash, query or fragment (a transaction is explorer_url + \"/tx/\" + hash)")
	}
	return nil
}

func checkHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return errors.New("must be an absolute http or https URL")
	}
	return nil
}
