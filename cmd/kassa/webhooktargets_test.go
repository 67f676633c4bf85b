package main

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
)

// TestServeWebhookAllowPrivateFlag: private webhook targets are off by default,
// on with --webhook-allow-private or its environment twin, and on with --dev
// unless given either way.
func TestServeWebhookAllowPrivateFlag(t *testing.T) {
	tests := []struct {
		name string
		env  string // KASSA_WEBHOOK_ALLOW_PRIVATE; "-" for unset
		args []string
		want bool
	}{
		{"default", "-", nil, false},
		{"flag", "-", []string{"--webhook-allow-private"}, true},
		{"env", "true", nil, true},
		{"env off", "false", nil, false},
		{"dev", "-", []string{"--dev"}, true},
		{"dev with the flag off", "-", []string{"--dev", "--webhook-allow-private=false"}, false},
		{"dev with the env off", "0", []string{"--dev"}, false},
		{"flag over env", "true", []string{"--webhook-allow-private=false"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(webhookAllowPrivateEnv, tt.env)
			if tt.env == "-" {
				os.Unsetenv(webhookAllowPrivateEnv)
			}
			f, err := parseServeFlags(tt.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if f.webhookAllowPrivate != tt.want || f.webhookTargets().AllowPrivate != tt.want {
				t.Fatalf("webhookAllowPrivate = %v, want %v", f.webhookAllowPrivate, tt.want)
			}
		})
	}
}

// TestServeDevAllowsPrivateWebhooks: serve --dev says in its banner that devnet
// webhooks may target private addresses and mainnet ones never, and its demo
// merchant can point a devnet endpoint at a loopback receiver over plain http (the
// demo's case).
func TestServeDevAllowsPrivateWebhooks(t *testing.T) {
	t.Setenv(webhookAllowPrivateEnv, "")
	os.Unsetenv(webhookAllowPrivateEnv)
	out, _ := runServe(t, append([]string{"--dev", "--devchain=false"}, storeArgs(store.Config{DataDir: t.TempDir()})...)...)
	banner := out.String()
	if !strings.Contains(banner, "webhooks:       devnet endpoints may target loopback and private addresses (--webhook-allow-private, on with --dev); mainnet ones never") {
		t.Fatalf("the --dev banner does not say webhooks may target private addresses:\n%s", banner)
	}
	url := regexp.MustCompile(`kassa listening on (\S+)`).FindStringSubmatch(banner)
	key := regexp.MustCompile(`merchant key:\s+(\S+)`).FindStringSubmatch(banner)
	if url == nil || key == nil {
		t.Fatalf("no address or key in:\n%s", banner)
	}
	wantStatus(t, call(t, "POST", "http://"+url[1]+"/api/v1/webhook-endpoints", map[string]string{"x-api-key": key[1]},
		map[string]any{"url": "http://127.0.0.1:9/hooks", "enabled_events": []string{"*"}}, nil), 201)
}
