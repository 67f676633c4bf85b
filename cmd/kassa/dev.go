package main

import (
	"context"
	"fmt"
	"io"

	"kassa"
	"kassa/store"
)

// The demo merchant that --dev seeds. Its password is printed, so it is only for
// local development on devnet.
const (
	devEmail    = "demo@kassa.dev"
	devPassword = "kassa-demo-password"
	devName     = "Demo Store"
	devKeyName  = "dev mode key"
	// devSettlementAddress receives the demo merchant's devnet settlements.
	devSettlementAddress = "0x52908400098527886E0F7030069857D2E4169EE7"
)

// seedDev makes sure the demo merchant exists, replaces the keys an earlier --dev
// start made (their secrets were shown once and are gone), and prints the login and
// the new keys.
//
// The demo merchant settles on settleNetwork: the dev chain's network when it
// runs (real sweeps), else bsc-testnet (simulated). A demo merchant an earlier
// start seeded on the other one is moved; a setting changed by hand is kept.
func seedDev(ctx context.Context, db *store.DB, publicURL, settleNetwork string, out io.Writer) error {
	m, err := db.MerchantByEmail(ctx, devEmail)
	if kassa.ErrorKindOf(err) == kassa.KindNotFound {
		m, err = db.CreateMerchant(ctx, kassa.MerchantCreate{Name: devName, Email: devEmail, Password: devPassword})
	}
	if err != nil {
		return err
	}
	if cur, ok := m.Settlement[kassa.Devnet]; !ok || (cur.Address == devSettlementAddress && cur.Network != settleNetwork) {
		// The demo merchant needs somewhere to send the money.
		target := &kassa.Settlement{Network: settleNetwork, TokenSymbol: "USDT", Address: devSettlementAddress}
		if m, err = db.UpdateMerchant(ctx, m.ID, kassa.MerchantUpdate{
			Settlement: map[kassa.Environment]*kassa.Settlement{kassa.Devnet: target}}); err != nil {
			return err
		}
	}
	keys, err := db.APIKeys(ctx, m.ID, "")
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.Name == devKeyName && k.RevokedAt == nil {
			if _, err := db.RevokeAPIKey(ctx, m.ID, k.ID, "replaced_by_dev_start"); err != nil {
				return err
			}
		}
	}
	secrets := map[kassa.Scope]string{}
	for _, scope := range []kassa.Scope{kassa.ScopeMerchant, kassa.ScopeCommerce} {
		_, secret, err := db.CreateAPIKey(ctx, m.ID, kassa.APIKeyCreate{Name: devKeyName, Scope: scope, Environment: kassa.Devnet})
		if err != nil {
			return err
		}
		secrets[scope] = secret
	}
	fmt.Fprintf(out, `Dev mode: demo merchant %d seeded (devnet). Do not use in production.
  dashboard:      %s/dashboard (sign in with the email and password below)
  login email:    %s
  login password: %s
  merchant key:   %s
  commerce key:   %s
`, m.ID, publicURL, devEmail, devPassword, secrets[kassa.ScopeMerchant], secrets[kassa.ScopeCommerce])
	return nil
}
