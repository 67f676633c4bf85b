package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/kassapay/kassa/devchain"
)

// TestHelpAndVersion: every way of asking for help or the version exits 0 and
// prints it (issue 37, finding 7): merchant and secrets help, help COMMAND, the
// positional arguments of pay and restore, and no private key shown as a default.
func TestHelpAndVersion(t *testing.T) {
	key := strings.TrimPrefix(devchain.Accounts()[0].PrivateKey, "0x")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"merchant", "--help"}, []string{"usage: kassa merchant COMMAND", "disable-two-step --id N"}},
		{[]string{"merchant", "help"}, []string{"enable-mainnet --id N"}},
		{[]string{"secrets", "--help"}, []string{"kassa secrets rotate --new-key-file"}},
		{[]string{"help", "pay"}, []string{"usage: kassa pay PAYMENT_URL [flags]", "-token", "-key"}},
		{[]string{"pay", "-h"}, []string{"usage: kassa pay PAYMENT_URL"}},
		{[]string{"help", "restore"}, []string{"usage: kassa restore FILE --data-dir DIR"}},
		{[]string{"help", "serve"}, []string{"-addr", "-webhook-allow-private"}},
		{[]string{"help"}, []string{"kassa help COMMAND", "kassa version"}},
		{[]string{"version"}, []string{"kassa ", "go1."}},
		{[]string{"--version"}, []string{"kassa ", "go1."}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			cmd := exec.Command(kassaBin, tt.args...)
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("kassa %s: %v\n%s", strings.Join(tt.args, " "), err, out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Fatalf("kassa %s printed no %q:\n%s", strings.Join(tt.args, " "), w, out.String())
				}
			}
			if strings.Contains(strings.ToLower(out.String()), key) {
				t.Fatalf("kassa %s printed the dev private key:\n%s", strings.Join(tt.args, " "), out.String())
			}
		})
	}
}
