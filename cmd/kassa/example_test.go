package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kassapay/kassa/store/storetest"
)

// TestExampleCreateInvoice builds client/examples/create-invoice, the generated
// client's example program, inside the client's own module (so the client builds
// without the server's go.mod), and runs it against the real binary: it creates
// an invoice and reads it back.
func TestExampleCreateInvoice(t *testing.T) {
	k := startKassa(t, storetest.SQLiteConfig(t))
	bin := filepath.Join(t.TempDir(), "create-invoice")
	if out, err := exec.Command("go", "-C", "../../client", "build", "-o", bin, "./examples/create-invoice").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-url", k.url, "-amount", "12.345", "-description", "from the example")
	cmd.Env = append(cmd.Environ(), "KASSA_API_KEY="+k.merchantKey)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`^invoice ([0-9a-f-]{36}) for \$12\.345: (\S+)\nstatus unpaid, expires `).FindStringSubmatch(string(out))
	if m == nil || !strings.Contains(m[2], "/pay/"+m[1]) {
		t.Fatalf("output:\n%s", out)
	}
	var inv struct {
		Description string `json:"description"`
		Amount      int64  `json:"amount"`
	}
	wantStatus(t, call(t, "GET", k.url+"/api/v1/invoices/"+m[1], map[string]string{"x-api-key": k.merchantKey}, nil, &inv), 200)
	if inv.Description != "from the example" || inv.Amount != 12345 {
		t.Fatalf("stored %+v", inv)
	}
}
