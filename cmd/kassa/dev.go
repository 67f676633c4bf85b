package main

import (
	"context"
	"fmt"
	"io"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/apikeys"
	"github.com/kassapay/kassa/sealed"
	"github.com/kassapay/kassa/store"
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

// seedDev makes sure the demo merchant exists, keeps the keys the last --dev
// start of this data dir printed when they still work, else replaces them, and
// prints the login and the keys.
//
// The keys' secrets are kept sealed in the data dir (devkeys.go): the store
// keeps only their hashes. When they cannot be used (a new data dir, a key
// revoked or deleted, another database or secrets key) the demo merchant's
// other dev keys are revoked (replaced_by_dev_start), new ones are made, and the
// banner says the earlier ones stopped working.
//
// The demo merchant settles on settleNetwork: the dev chain's network when it
// runs (real sweeps), else bsc-testnet (simulated). A demo merchant an earlier
// start seeded on the other one is moved; a setting changed by hand is kept.
func seedDev(ctx context.Context, db *store.DB, dataDir string, sealer *sealed.Keyring, publicURL, settleNetwork string, out io.Writer) error {
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
	secrets, kept, err := keptDevKeys(ctx, db, dataDir, sealer, m.ID)
	if err != nil {
		return err
	}
	earlier := false
	if !kept {
		if earlier, secrets, err = replaceDevKeys(ctx, db, m.ID); err != nil {
			return err
		}
		if err := saveDevKeys(dataDir, sealer, m.ID, secrets); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, `Dev mode: demo merchant %d seeded (devnet). Do not use in production.
  dashboard:      %s/dashboard (sign in with the email and password below)
  login email:    %s
  login password: %s
  merchant key:   %s
  commerce key:   %s
`, m.ID, publicURL, devEmail, devPassword, secrets[kassa.ScopeMerchant], secrets[kassa.ScopeCommerce])
	switch {
	case kept:
		fmt.Fprintln(out, "  (the same keys as the last start on this data dir)")
	case earlier:
		fmt.Fprintln(out, "  (new keys: the keys an earlier start printed no longer work)")
	}
	return nil
}

// replaceDevKeys revokes the demo merchant's live dev keys and makes one key per
// scope; it returns whether an earlier start had made dev keys, and the new
// secrets.
func replaceDevKeys(ctx context.Context, db *store.DB, merchantID int64) (bool, map[kassa.Scope]string, error) {
	keys, err := db.APIKeys(ctx, merchantID, "")
	if err != nil {
		return false, nil, err
	}
	earlier := false
	for _, k := range keys {
		if k.Name != devKeyName {
			continue
		}
		earlier = true
		if k.RevokedAt == nil {
			if _, err := db.RevokeAPIKey(ctx, merchantID, k.ID, "replaced_by_dev_start"); err != nil {
				return earlier, nil, err
			}
		}
	}
	secrets := map[kassa.Scope]string{}
	for _, scope := range devScopes {
		_, secret, err := apikeys.Over(db).CreateAPIKey(ctx, merchantID, kassa.APIKeyCreate{Name: devKeyName, Scope: scope, Environment: kassa.Devnet})
		if err != nil {
			return earlier, nil, err
		}
		secrets[scope] = secret
	}
	return earlier, secrets, nil
}
