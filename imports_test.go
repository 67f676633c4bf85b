package kassa

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowedImports are the imports of the domain beyond the standard library.
var allowedImports = map[string]bool{
	"golang.org/x/crypto/sha3": true, // Keccak-256; a hand-written hash is a liability
}

// TestDomainImportsStandardLibraryOnly keeps the domain free of dependencies: a
// path whose first element has no dot is the standard library.
func TestDomainImportsStandardLibraryOnly(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") && !allowedImports[path] {
				t.Errorf("%s imports %s: the domain imports only the standard library", name, path)
			}
			if path == "github.com/kassapay/kassa" || strings.HasPrefix(path, "github.com/kassapay/kassa/") {
				t.Errorf("%s imports %s: the domain imports no package of this module", name, path)
			}
		}
	}
}

// TestUnsafeOnlyInFastPaths: a package that imports "unsafe" is a fast path, so it
// lives under internal/ with its own doc comment, benchmark and test against the
// plain way (docs/performance.md, "Fast paths").
func TestUnsafeOnlyInFastPaths(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasPrefix(path, "internal/") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if imp.Path.Value == `"unsafe"` {
				t.Errorf("%s imports unsafe outside internal/", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
