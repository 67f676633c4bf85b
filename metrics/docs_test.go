package metrics

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kassapay/kassa"
	"github.com/kassapay/kassa/metrics/metricstest"
	"github.com/kassapay/kassa/registry"
)

// everything is a scrape with every metric present: all sources, one of each event.
func everything(t *testing.T) metricstest.Families {
	t.Helper()
	m := New(Config{Registry: registry.Default()})
	m.Route("GET /healthz")(200, time.Millisecond)
	m.InvoiceCreated()
	m.RPCCalls("devchain", "eth_getLogs", "ok", 1)
	m.RPCDuration("devchain", "eth_getLogs", time.Millisecond)
	m.Reorganisation("devchain", 1)
	m.Scrape(Sources{
		Ready:    func(context.Context) error { return nil },
		Warnings: func() []string { return nil },
		WebhookBacklog: func(context.Context, time.Time) (WebhookBacklog, error) {
			return WebhookBacklog{}, nil
		},
		Chains: func() []ChainProgress {
			return []ChainProgress{{Network: "devchain", Head: 1, Processed: 1, At: time.Now(), Current: true}}
		},
		Subscribers: func() int { return 0 },
	})
	m.WebSocketOpened(kassa.ScopeMerchant)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	return metricstest.Scrape(t, srv.URL)
}

var kassaName = regexp.MustCompile(`kassa_[a-z_]+[a-z]`)

// TestDocsNameRealMetrics: every metric the alert rules, the Grafana dashboard and
// docs/operations.md name exists, and operations.md lists every metric Kassa
// defines (the Go runtime's and the process's aside).
func TestDocsNameRealMetrics(t *testing.T) {
	served := everything(t)
	docs := map[string]string{}
	for _, f := range []string{"prometheus-alerts.yml", "grafana-dashboard.json", "operations.md"} {
		b, err := os.ReadFile("../docs/" + f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = string(b)
		for _, name := range kassaName.FindAllString(string(b), -1) {
			base := name
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if b, ok := strings.CutSuffix(name, suffix); ok && served[b] != nil {
					base = b
				}
			}
			if served[base] == nil && !served.HasPrefix(name+"_") && name != "kassa_commits" { // the PostgreSQL channel, not a metric
				t.Errorf("docs/%s names %s, which /metrics does not serve", f, name)
			}
		}
	}
	for name := range served {
		if strings.HasPrefix(name, "kassa_go_") || strings.HasPrefix(name, "kassa_process_") {
			continue
		}
		if !strings.Contains(docs["operations.md"], "`"+name+"`") {
			t.Errorf("docs/operations.md does not list %s", name)
		}
	}
}

// TestAlertRulesValid: promtool accepts docs/prometheus-alerts.yml (skipped where
// promtool is not installed).
func TestAlertRulesValid(t *testing.T) {
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (apt-get install prometheus)")
	}
	if out, err := exec.Command(path, "check", "rules", "../docs/prometheus-alerts.yml").CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
}
