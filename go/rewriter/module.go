package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Module is a Go module on disk: its path (from go.mod) and root directory.
type Module struct {
	Path string
	Dir  string
}

// OpenModule reads the module path from dir/go.mod.
func OpenModule(dir string) (Module, error) {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return Module{}, fmt.Errorf("%s is not a Go module root: %w", dir, err)
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return Module{Path: strings.Trim(fields[1], `"`), Dir: dir}, nil
		}
	}
	return Module{}, fmt.Errorf("%s/go.mod has no module line", dir)
}

// PackageDir is the directory of import path pkg inside the module, or "" if pkg is not in it.
func (m Module) PackageDir(pkg string) string {
	switch {
	case pkg == m.Path:
		return m.Dir
	case strings.HasPrefix(pkg, m.Path+"/"):
		return filepath.Join(m.Dir, filepath.FromSlash(strings.TrimPrefix(pkg, m.Path+"/")))
	}
	return ""
}

// Packages lists the import paths of every directory of the module holding non-test .go files
// (vendor, testdata and hidden directories excluded, as the go tool does).
func (m Module) Packages() ([]string, error) {
	var pkgs []string
	err := filepath.WalkDir(m.Dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != m.Dir && (name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if path != m.Dir {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module is not part of this one
			}
		}
		files, _ := sourceFiles(path)
		if len(files) > 0 {
			rel, _ := filepath.Rel(m.Dir, path)
			if rel == "." {
				pkgs = append(pkgs, m.Path)
			} else {
				pkgs = append(pkgs, m.Path+"/"+filepath.ToSlash(rel))
			}
		}
		return nil
	})
	sort.Strings(pkgs)
	return pkgs, err
}

// sourceFiles are the non-test .go files of a directory, sorted.
func sourceFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && !strings.HasPrefix(n, "benchwarden_") {
			files = append(files, filepath.Join(dir, n))
		}
	}
	sort.Strings(files)
	return files, nil
}

// ParsedFile is one parsed source file of a package.
type ParsedFile struct {
	Path string
	File *ast.File
}

// ParsePackage parses the non-test files of a package directory, with comments (they are printed back).
func ParsePackage(fset *token.FileSet, dir string) ([]ParsedFile, error) {
	paths, err := sourceFiles(dir)
	if err != nil {
		return nil, err
	}
	var files []ParsedFile
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("cannot parse %s: %w", p, err)
		}
		files = append(files, ParsedFile{p, f})
	}
	return files, nil
}

// WriteFile prints a (modified) syntax tree back to its file.
func WriteFile(fset *token.FileSet, pf ParsedFile) error {
	out, err := os.Create(pf.Path)
	if err != nil {
		return err
	}
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(out, fset, pf.File); err != nil {
		out.Close()
		return fmt.Errorf("cannot print %s: %w", pf.Path, err)
	}
	return out.Close()
}

// receiverName is the receiver's type name without '*' and type parameters, "" for a function.
func receiverName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// pointerReceiver tells whether the method's receiver is a pointer.
func pointerReceiver(fd *ast.FuncDecl) bool {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return false
	}
	_, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
	return ok
}

// qualifiedName names a declaration like Go's runtime: pkg.F, pkg.(*T).M or pkg.T.M.
func qualifiedName(pkg string, fd *ast.FuncDecl) string {
	recv := receiverName(fd)
	switch {
	case recv == "":
		return pkg + "." + fd.Name.Name
	case pointerReceiver(fd):
		return pkg + ".(*" + recv + ")." + fd.Name.Name
	default:
		return pkg + "." + recv + "." + fd.Name.Name
	}
}

// prepend inserts statements at the top of a function body.
func prepend(fd *ast.FuncDecl, stmts ...ast.Stmt) {
	fd.Body.List = append(stmts, fd.Body.List...)
}
