package api_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kassapay/kassa/api/openapi/openapitest"
)

// TestMain runs the package's tests, then reports what their exchanges covered of
// the OpenAPI document: printed with -v, written to the file named by
// KASSA_OPENAPI_COVERAGE when it is set.
func TestMain(m *testing.M) {
	code := m.Run()
	if c, err := openapitest.Shared(); err == nil {
		report := c.Report()
		if testing.Verbose() {
			fmt.Print(report)
		}
		if path := os.Getenv("KASSA_OPENAPI_COVERAGE"); path != "" {
			if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "writing the OpenAPI coverage:", err)
			}
		}
	}
	os.Exit(code)
}

// checked wraps the API so every exchange of the test (but the HTML pages) is
// checked against the OpenAPI document: anything it does not describe fails t.
func checked(t *testing.T, h http.Handler) http.Handler {
	t.Helper()
	c, err := openapitest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return c.Handler(h, t.Errorf)
}

// routeExpansions are the routes of routes.go registered as one ServeMux pattern
// for what the document describes as several paths.
var routeExpansions = map[string][]string{
	"GET /api/v1/invoices/{first}/{rest...}": {"GET /api/v1/invoices/customer/{customerId}", "GET /api/v1/invoices/{invoiceId}/status",
		"GET /api/v1/invoices/{invoiceId}/refunds"},
}

// notInRoutes are documented operations served outside api/routes.go.
var notInRoutes = map[string]bool{
	"GET /metrics": true, // cmd/kassa serves it beside the API
}

// TestRoutesDocumented: every route of api/routes.go under /api, /ws, /healthz and
// /readyz is an operation of the OpenAPI document, and every operation of the
// document is a route, so a route added without its documentation (or documentation
// of a route that went away) fails.
func TestRoutesDocumented(t *testing.T) {
	routes := routesOf(t, "routes.go")
	if len(routes) < 40 {
		t.Fatalf("only %d routes found in routes.go: %v", len(routes), routes)
	}
	c, err := openapitest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, p := range c.Documented() {
		documented[p.Operation] = true
	}
	served := map[string]bool{}
	for _, r := range routes {
		if ops, ok := routeExpansions[r]; ok {
			for _, op := range ops {
				served[op] = true
			}
			continue
		}
		served[r] = true
	}
	for _, op := range sortedKeys(served) {
		if !documented[op] {
			t.Errorf("route %s is not in api/openapi/openapi.json", op)
		}
	}
	for _, op := range sortedKeys(documented) {
		if !served[op] && !notInRoutes[op] {
			t.Errorf("the document describes %s, which routes.go does not serve", op)
		}
	}
	t.Logf("%d routes, %d documented operations", len(served), len(documented))
}

// routesOf reads the patterns of the Handle and HandleHTTP calls in a Go file and
// keeps those the document covers: /api, /ws, /healthz and /readyz.
func routesOf(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Handle" && sel.Sel.Name != "HandleHTTP") {
			return true
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		pattern, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatal(err)
		}
		_, path, _ := strings.Cut(pattern, " ")
		for _, prefix := range []string{"/api/", "/ws/", "/healthz", "/readyz"} {
			if strings.HasPrefix(path, prefix) {
				out = append(out, pattern)
				break
			}
		}
		return true
	})
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
