package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/merchants"
	"github.com/kassapay/kassa/signin"
	"github.com/kassapay/kassa/store"
)

// merchantJSON is what the merchant commands print.
type merchantJSON struct {
	MerchantID     int64  `json:"merchant_id"`
	Name           string `json:"name"`
	Email          string `json:"email"`
	MainnetEnabled bool   `json:"mainnet_enabled"`
}

// merchantCmd runs "kassa merchant create", "kassa merchant enable-mainnet" and
// "kassa merchant disable-two-step" (turns the dashboard's second factor off).
func merchantCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: kassa merchant create|enable-mainnet|disable-two-step [flags]")
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, merchantUsage)
		return nil
	}
	var sf storeFlags
	fs := newFlagSet("kassa merchant "+args[0], stderr)
	sf.register(fs)
	var m *kassa.Merchant
	switch args[0] {
	case "create":
		var c kassa.MerchantCreate
		fs.StringVar(&c.Name, "name", "", "merchant name (required)")
		fs.StringVar(&c.Email, "email", "", "dashboard login email (required)")
		fs.StringVar(&c.Password, "password", "", "dashboard password, 8 to 72 characters (required)")
		fs.BoolVar(&c.MainnetEnabled, "mainnet", false, "grant mainnet access")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		db, err := store.Open(ctx, sf.config())
		if err != nil {
			return err
		}
		defer db.Close()
		if m, err = accounts(db).Create(ctx, c); err != nil {
			return explain(err)
		}
	case "enable-mainnet", "disable-two-step":
		id := fs.Int64("id", 0, "merchant id (required)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *id <= 0 {
			return errors.New("--id is required")
		}
		db, err := store.Open(ctx, sf.config())
		if err != nil {
			return err
		}
		defer db.Close()
		if args[0] == "disable-two-step" { // a merchant who lost the authenticator app
			if m, err = db.Merchant(ctx, *id); err == nil {
				err = db.DisableTOTP(ctx, *id)
			}
		} else {
			m, err = accounts(db).EnableMainnet(ctx, *id)
		}
		if err != nil {
			return explain(err)
		}
	default:
		return fmt.Errorf("unknown merchant command %q", args[0])
	}
	return json.NewEncoder(stdout).Encode(merchantJSON{m.ID, m.Name, m.Email, m.MainnetEnabled})
}

// accounts is the merchant service over db, as the API runs it.
func accounts(db *store.DB) *merchants.Service {
	return merchants.New(db, signin.New(db, db, nil))
}

// explain turns a domain error into a message that names the flag at fault.
func explain(err error) error {
	if e := kassa.AsError(err); e.Kind != kassa.KindInternal {
		if e.Param != "" {
			return fmt.Errorf("--%s: %s", e.Param, e.Message)
		}
		return errors.New(e.Message)
	}
	return err
}
