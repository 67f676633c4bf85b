package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/kassapay/kassa/store/storetest"
)

// TestListenAndTrigger runs "kassa listen" against a running kassa and a local
// receiver, then "kassa trigger invoice.paid": the receiver gets the events, signed
// with the secret listen printed.
func TestListenAndTrigger(t *testing.T) {
	k := startKassa(t, storetest.SQLiteConfig(t))
	rcv := newReceiver(t)
	client := []string{"--url", k.url, "--api-key", k.merchantKey}

	cmd := exec.Command(kassaBin, append([]string{"listen", "--forward-to", rcv.srv.URL + "/hooks"}, client...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("listen stderr:\n%s", stderr.String())
		}
	})
	secrets := make(chan string, 1)
	var out strings.Builder
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			rcv.mu.Lock()
			out.WriteString(line + "\n")
			rcv.mu.Unlock()
			if s, ok := strings.CutPrefix(line, "Ready! Your webhook signing secret is "); ok {
				secrets <- strings.TrimSpace(s)
			}
		}
	}()
	var secret string
	select {
	case secret = <-secrets:
	case <-time.After(30 * time.Second):
		t.Fatal("kassa listen did not get ready")
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatalf("printed secret %q: %v", secret, err)
	}
	rcv.mu.Lock()
	rcv.wh = wh
	rcv.mu.Unlock()

	got := string(runKassa(t, append([]string{"trigger", "invoice.paid"}, client...)...))
	if !strings.Contains(got, "Trigger succeeded") {
		t.Fatalf("trigger printed %q", got)
	}
	seen := func(typ string) func() bool {
		return func() bool {
			for id, tp := range rcv.types {
				if tp == typ && rcv.acked[id] {
					return true
				}
			}
			return false
		}
	}
	for _, typ := range []string{"invoice.created", "invoice_payment.created", "invoice.paid", "invoice.updated"} {
		rcv.waitFor(typ+" forwarded", seen(typ))
	}
	rcv.waitFor("listen to print the forward", func() bool {
		return strings.Contains(out.String(), "--> invoice.paid [evt_") && strings.Contains(out.String(), "<-- [200] POST "+rcv.srv.URL+"/hooks")
	})

	// Bad uses fail clearly.
	for _, args := range [][]string{
		{"trigger", "invoice.nope", "--api-key", k.merchantKey},
		{"trigger", "invoice.paid"},
		{"listen", "--api-key", k.merchantKey},
	} {
		if err := exec.Command(kassaBin, args...).Run(); err == nil {
			t.Errorf("kassa %v succeeded, want an error", args)
		}
	}
}
