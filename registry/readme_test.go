package registry

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/kassapay/kassa"
)

// TestReadmeNamesEveryField: README.md's field table has a row for every field
// a registry file accepts (the JSON names of kassa.Network and kassa.Token), and
// its example file loads.
func TestReadmeNamesEveryField(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	documented := map[string]bool{} // "networks.name", "tokens.symbol", …
	row := regexp.MustCompile("(?m)^\\| (`(networks|tokens)\\[\\]\\.[a-z_]+`(?:, `[a-z_\\[\\].]+`)*) \\|")
	for _, m := range row.FindAllStringSubmatch(readme, -1) {
		for _, cell := range strings.Split(m[1], ", ") {
			name := strings.Trim(cell, "`")
			if i := strings.Index(name, "[]."); i >= 0 {
				documented[name[:i]+"."+name[i+3:]] = true
			} else {
				documented[m[2]+"."+name] = true // "`name`" after "`tokens[].symbol`"
			}
		}
	}
	for prefix, typ := range map[string]reflect.Type{"networks": reflect.TypeFor[kassa.Network](), "tokens": reflect.TypeFor[kassa.Token]()} {
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !documented[prefix+"."+name] {
				t.Errorf("README.md's field table has no row for %s[].%s", prefix, name)
			}
		}
	}

	start := strings.Index(readme, "```json\n")
	end := strings.Index(readme[start+1:], "```\n")
	if start < 0 || end < 0 {
		t.Fatal("README.md has no JSON example")
	}
	if _, err := Parse([]byte(readme[start+len("```json\n") : start+1+end])); err != nil {
		t.Errorf("README.md's example: %v", err)
	}
}
