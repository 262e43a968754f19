package sweeptest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Literal is a string literal in a Go file of the module.
type Literal struct {
	// Package is the file's directory, slash-separated, from the module root.
	Package string
	// File is the file's path, slash-separated, from the module root.
	File string
	Line int
	// Value is the literal's value; Source is the literal as written, quotes and all.
	Value, Source string
}

// ModuleRoot is the directory of the go.mod above the test's working directory.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for !isFile(filepath.Join(dir, "go.mod")) {
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
	return dir
}

// StringLiterals returns the string literals of the non-test Go files of the module at root,
// skipping hidden directories, testdata, bin, vendor and nested modules. Guard tests use it to
// keep a contract spelled in one package only.
func StringLiterals(t testing.TB, root string) []Literal {
	t.Helper()
	fset := token.NewFileSet()
	var lits []Literal
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin" || name == "vendor" ||
				isFile(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil {
				lits = append(lits, Literal{Package: filepath.ToSlash(filepath.Dir(rel)), File: filepath.ToSlash(rel),
					Line: fset.Position(lit.Pos()).Line, Value: s, Source: lit.Value})
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lits
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
