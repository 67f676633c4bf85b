// Command kassa runs the Kassa invoicing service and administers it.
//
//	kassa serve [--dev] [--addr A] [--data-dir D] [--database-url URL] ...
//	kassa merchant create --name N --email E --password P [--mainnet]
//	kassa merchant enable-mainnet --id N
//	kassa merchant disable-two-step --id N
//	kassa listen --forward-to URL [--api-key KEY] [--url URL]
//	kassa trigger EVENT [--api-key KEY] [--url URL]
//	kassa pay PAYMENT_URL [--token SYMBOL] [--amount USD] [--key HEX]
//	kassa wallet [--dev] [--rpc NETWORK=URL] [--json]
//	kassa secrets rotate --new-key-file F [--secrets-key-file OLD]
//	kassa version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `Kassa: self-hostable crypto invoicing.

Usage:
  kassa serve [flags]                      run the service (--dev seeds a demo merchant)
  kassa merchant create --name N --email E --password P [--mainnet]
  kassa merchant enable-mainnet --id N
  kassa merchant disable-two-step --id N   turn off a merchant's two-step sign-in (a lost app)
  kassa listen --forward-to http://localhost:4242/webhooks [--api-key KEY]
                                           forward the key's events, signed, to a local URL
  kassa trigger invoice.paid [--api-key KEY]
                                           create the devnet objects that emit an event
  kassa pay PAYMENT_URL [--token USDT] [--amount USD] [--key HEX]
                                           pay an invoice on the dev chain as a wallet would
  kassa wallet [--dev] [--rpc NETWORK=URL] [--json]
                                           the gas wallets: addresses, balances, what waits on them
  kassa backup --out FILE [--data-dir DIR] an online snapshot of an SQLite deployment (database and keys)
  kassa restore FILE --data-dir DIR        a backup back into an empty data dir
  kassa secrets rotate --new-key-file F [--secrets-key-file OLD]
                                           re-encrypt the secrets at rest under a new key

  kassa version                            the build: module version, commit, Go version

Run "kassa help COMMAND" (or "kassa COMMAND -h") for a command's flags; serve's
each have an environment twin KASSA_<FLAG>.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "kassa:", err)
		os.Exit(1)
	}
}

// run dispatches a command line; it returns when the command is done or ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("no command given")
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stdout, stderr)
	case "merchant":
		return merchantCmd(ctx, args[1:], stdout, stderr)
	case "listen":
		return listen(ctx, args[1:], stdout, stderr)
	case "trigger":
		return trigger(ctx, args[1:], stdout, stderr)
	case "pay":
		return pay(ctx, args[1:], stdout, stderr)
	case "wallet":
		return wallet(ctx, args[1:], stdout, stderr)
	case "backup":
		return backup(ctx, args[1:], stdout, stderr)
	case "restore":
		return restore(ctx, args[1:], stdout, stderr)
	case "secrets":
		return secretsCmd(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		if len(args) > 1 && args[0] == "help" && args[1] != "help" {
			return run(ctx, []string{args[1], "-h"}, stdout, stderr) // the command's own help
		}
		fmt.Fprint(stdout, usage)
		return nil
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, version())
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
}
