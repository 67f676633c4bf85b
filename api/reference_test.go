package api_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/kassapay/kassa/api/openapi"
	"github.com/kassapay/kassa/store/storetest"
)

// TestReferencePage: /docs is the reference page of the embedded OpenAPI
// document: every operation and webhook has its section, links resolve within
// the page, and the stylesheet is served from this origin.
func TestReferencePage(t *testing.T) {
	e := newEnv(t, storetest.SQLiteConfig(t))
	r := e.do(request{method: "GET", path: "/docs"})
	expectStatus(t, r, 200)
	if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Fatalf("Content-Type %q", ct)
	}
	page := string(r.body)
	var doc struct {
		Paths    map[string]map[string]json.RawMessage `json:"paths"`
		Webhooks map[string]json.RawMessage            `json:"webhooks"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	ops := 0
	for path, item := range doc.Paths {
		for method, raw := range item {
			if method == "parameters" {
				continue
			}
			var op struct {
				ID string `json:"operationId"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			ops++
			if !strings.Contains(page, `<article class="op" id="`+op.ID+`">`) {
				t.Errorf("%s %s (%s) has no section", method, path, op.ID)
			}
		}
	}
	for name := range doc.Webhooks {
		if !strings.Contains(page, `<code class="path">`+name+`</code>`) {
			t.Errorf("webhook %s has no section", name)
		}
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if !ids[m[1]] {
			t.Errorf("link #%s has no target", m[1])
		}
	}
	css := regexp.MustCompile(`href="(/docs/assets/[0-9a-f]+/reference.css)"`).FindStringSubmatch(page)
	if css == nil {
		t.Fatal("no stylesheet")
	}
	expectStatus(t, e.do(request{method: "GET", path: css[1]}), 200)
	t.Logf("%d operations, %d webhooks, %d bytes", ops, len(doc.Webhooks), len(page))
}
