package openapi

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestClientModuleDependencies keeps the client module light for integrators: it
// may require the generator's runtime and what that runtime itself needs, never
// the server's dependencies (go-ethereum, database drivers).
func TestClientModuleDependencies(t *testing.T) {
	allowed := map[string]bool{
		"github.com/oapi-codegen/runtime":    true,
		"github.com/google/uuid":             true, // the runtime's, and Idempotency-Key's type
		"github.com/apapsch/go-jsonmerge/v2": true, // the runtime's
	}
	f, err := os.Open("../../client/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var module string
	var required []string
	inBlock := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "module "):
			module = strings.TrimPrefix(line, "module ")
		case line == "require (":
			inBlock = true
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "":
			required = append(required, strings.Fields(line)[0])
		case strings.HasPrefix(line, "require "):
			required = append(required, strings.Fields(line)[1])
		case strings.HasPrefix(line, "replace "):
			t.Errorf("client/go.mod has a replace directive (%s): go get would not see it", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if module != "github.com/kassapay/kassa/client" {
		t.Errorf("client module path %q, want github.com/kassapay/kassa/client (a path go get resolves)", module)
	}
	if len(required) == 0 {
		t.Fatal("client/go.mod requires nothing: not the file this test knows")
	}
	for _, m := range required {
		if !allowed[m] {
			t.Errorf("client/go.mod requires %s: the client may depend only on the generator's runtime", m)
		}
	}
}
