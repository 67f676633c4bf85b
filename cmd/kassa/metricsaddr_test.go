package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kassapay/kassa/store"
)

// proxyHeaders are the client-IP headers a reverse proxy or CDN may add.
var proxyHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Real-IP", "CF-Connecting-IP", "True-Client-IP",
	"X-Client-IP", "Fastly-Client-IP", "X-Cluster-Client-IP", "Client-IP"}

// getMetrics asks url for the metrics with header (when not "") set, and returns
// the status and whether the body is the Prometheus text.
func getMetrics(t *testing.T, url, header string) (int, bool) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if header != "" {
		req.Header.Set(header, "203.0.113.9")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, strings.Contains(string(body), "kassa_build_info")
}

// TestMetricsListener: without --metrics-addr, /metrics is on the main listener
// and refuses (404) a request carrying any client-IP header a proxy may add; with
// it, /metrics is served on that listener only (the main one answers 404), under
// the same rules.
func TestMetricsListener(t *testing.T) {
	t.Run("main listener", func(t *testing.T) {
		k := startKassa(t, store.Config{})
		if k.metricsAddr != "" {
			t.Fatalf("a metrics listener without --metrics-addr: %s", k.metricsAddr)
		}
		if status, ok := getMetrics(t, k.url+"/metrics", ""); status != 200 || !ok {
			t.Fatalf("/metrics from loopback: %d", status)
		}
		for _, h := range proxyHeaders {
			if status, ok := getMetrics(t, k.url+"/metrics", h); status != 404 || ok {
				t.Errorf("/metrics with %s: %d, want 404", h, status)
			}
		}
	})
	t.Run("own listener", func(t *testing.T) {
		k := startKassa(t, store.Config{}, "--metrics-addr", "127.0.0.1:0")
		if k.metricsAddr == "" {
			t.Fatal("no metrics listener reported")
		}
		if status, ok := getMetrics(t, k.url+"/metrics", ""); status != 404 || ok {
			t.Fatalf("/metrics on the main listener: %d, want 404", status)
		}
		url := "http://" + k.metricsAddr
		if status, ok := getMetrics(t, url+"/metrics", ""); status != 200 || !ok {
			t.Fatalf("/metrics on --metrics-addr: %d", status)
		}
		if status, _ := getMetrics(t, url+"/api/v1/invoices", ""); status != 404 {
			t.Errorf("the API on --metrics-addr: %d, want 404", status)
		}
		for _, h := range proxyHeaders {
			if status, ok := getMetrics(t, url+"/metrics", h); status != 404 || ok {
				t.Errorf("/metrics on --metrics-addr with %s: %d, want 404", h, status)
			}
		}
	})
}
