package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
)

// UnitFunction is one function or method of a file: its name as the tracer writes it without the import path
// (F, (*T).M or T.M), its line, and its code as go/printer prints it without comments.
type UnitFunction struct {
	Name string `json:"name"`
	Line int    `json:"line"`
	Code string `json:"code"`
}

// FileUnits is what change detection needs from one file: its package clause, its functions, and everything
// else (imports, types, constants, variables, init functions) printed without comments as the skeleton.
type FileUnits struct {
	Package   string         `json:"package"`
	Functions []UnitFunction `json:"functions"`
	Skeleton  string         `json:"skeleton"`
}

// Units reads one Go file (never writes). A file that does not parse is an error.
func Units(path string) (FileUnits, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return FileUnits{}, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution) // no ParseComments: code only
	if err != nil {
		return FileUnits{}, err
	}
	out := FileUnits{Package: f.Name.Name, Functions: []UnitFunction{}}
	var skeleton bytes.Buffer
	print := func(node any) (string, error) {
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, node); err != nil {
			return "", fmt.Errorf("cannot print %s: %w", path, err)
		}
		return b.String(), nil
	}
	for _, decl := range f.Decls {
		code, err := print(decl)
		if err != nil {
			return FileUnits{}, err
		}
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || (fd.Recv == nil && fd.Name.Name == "init") { // init runs in every process: not a method
			skeleton.WriteString(code)
			skeleton.WriteString("\n")
			continue
		}
		name := qualifiedName("", fd)[1:] // strip the leading "." left by the empty import path
		out.Functions = append(out.Functions, UnitFunction{Name: name, Line: fset.Position(fd.Pos()).Line, Code: code})
	}
	out.Skeleton = skeleton.String()
	return out, nil
}
