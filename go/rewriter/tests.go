package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"unicode"
	"unicode/utf8"
)

// TestFunc is one test function of a package, as `go test` finds it.
type TestFunc struct {
	Name     string `json:"name"`
	External bool   `json:"external"` // declared in the external test package (package p_test)
	// Subtests are the names of the subtests the function's body starts with a name known from the source
	// (t.Run("name", ...), or a table's literal names), as Go names them; see Subtests.
	Subtests []string `json:"subtests,omitempty"`
}

// TestListing is what ListTests finds in one package directory.
type TestListing struct {
	Package string     `json:"package"` // the package's name (not its import path)
	Tests   []TestFunc `json:"tests"`
}

// ListTests finds the test functions of the package in dir the way `go test` does (cmd/go's load.formatTestmain
// rules): top-level `func TestXxx(t *testing.T)` without results or type parameters, Xxx not starting with a lower
// case letter, TestMain excluded, in the _test.go files the build constraints select (go/build).
func ListTests(dir string) (TestListing, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		if _, none := err.(*build.NoGoError); !none {
			return TestListing{}, err
		}
	}
	listing := TestListing{Package: bp.Name, Tests: []TestFunc{}}
	fset := token.NewFileSet()
	for _, group := range []struct {
		files    []string
		external bool
	}{{bp.TestGoFiles, false}, {bp.XTestGoFiles, true}} {
		for _, name := range group.files {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return TestListing{}, fmt.Errorf("cannot parse %s: %w", filepath.Join(dir, name), err)
			}
			testing := importName(f, "testing")
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if ok && isTestFunc(fd, testing) {
					listing.Tests = append(listing.Tests, TestFunc{fd.Name.Name, group.external, Subtests(f, fd)})
				}
			}
		}
	}
	return listing, nil
}

// Subtests lists the subtests a test function starts on its own *testing.T with a name known from the source,
// anywhere in its body but not inside a function literal that declares its own t (a subtest's body: its
// subtests are a level further down):
//
//   - a string literal, t.Run("name", f);
//   - a table, the common Go idiom: t.Run(tt.name, f) inside `for _, tt := range tests` where tests is a slice
//     or array literal (in the range clause, or bound once in the function or the file and never assigned
//     again) whose every element gives the field a string literal, keyed (name: "x") or by position (the
//     struct type written in the literal, the function or the file); t.Run(name, f) ranging over the string
//     literals of a slice, or over the keys of a map literal;
//
// Names as Go's testing rewrites them (spaces to underscores, unprintable runes quoted), each once; a name
// with a "/" (it would read as two levels), a name computed otherwise and a duplicate (Go runs it as name#01)
// are not listed, nor any name of a table one of whose elements does not say its name: such subtests are
// measured as part of their test.
func Subtests(file *ast.File, fd *ast.FuncDecl) []string {
	names := fd.Type.Params.List[0].Names
	if len(names) != 1 || names[0].Name == "_" || fd.Body == nil {
		return nil
	}
	t := names[0].Name
	seen := map[string]int{}
	var order []string
	add := func(text string) {
		if strings.Contains(text, "/") {
			return
		}
		name := subtestName(text)
		if seen[name] == 0 {
			order = append(order, name)
		}
		seen[name]++
	}
	scope := tableScope{file: file, body: fd.Body}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if n == nil {
			scope.stack = scope.stack[:len(scope.stack)-1]
			return true
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			for _, field := range n.Type.Params.List {
				for _, name := range field.Names {
					if name.Name == t {
						return false // shadowed: a subtest's own t
					}
				}
			}
		case *ast.CallExpr:
			if arg := runArgument(n, t); arg != nil {
				if text, ok := stringLiteral(arg); ok {
					add(text)
				} else if texts, ok := scope.names(arg); ok {
					for _, text := range texts {
						add(text)
					}
				}
			}
		}
		scope.stack = append(scope.stack, n)
		return true
	})
	var once []string
	for _, name := range order {
		if seen[name] == 1 {
			once = append(once, name)
		}
	}
	return once
}

// runArgument is the name argument of call if call is t.Run(name, f) on the identifier t, else nil.
func runArgument(call *ast.CallExpr, t string) ast.Expr {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Run" || len(call.Args) != 2 {
		return nil
	}
	if recv, ok := sel.X.(*ast.Ident); !ok || recv.Name != t {
		return nil
	}
	return call.Args[0]
}

func stringLiteral(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	text, err := strconv.Unquote(lit.Value)
	return text, err == nil
}

// tableScope resolves a subtest name computed from a range loop's variables to the names a table literal gives.
type tableScope struct {
	file  *ast.File
	body  *ast.BlockStmt
	stack []ast.Node // the nodes enclosing the one being inspected, outermost first
}

// names are the texts arg takes over the loop that binds it: tt.field over a table of structs, v over a slice of
// strings, k over a map's keys, tests[i].field and names[i] over a table's indexes (false when any is unknown).
func (s *tableScope) names(arg ast.Expr) ([]string, bool) {
	variable, field, indexed := "", "", ""
	if sel, ok := arg.(*ast.SelectorExpr); ok {
		arg, field = sel.X, sel.Sel.Name
	}
	switch a := arg.(type) {
	case *ast.Ident:
		variable = a.Name
	case *ast.IndexExpr: // tests[i].name or names[i], i ranging over tests' indexes
		table, okTable := a.X.(*ast.Ident)
		index, okIndex := a.Index.(*ast.Ident)
		if !okTable || !okIndex {
			return nil, false
		}
		variable, indexed = index.Name, table.Name
	default:
		return nil, false
	}
	for i := len(s.stack) - 1; i >= 0; i-- {
		rng, ok := s.stack[i].(*ast.RangeStmt)
		if !ok || rng.Tok != token.DEFINE {
			continue
		}
		isKey, isValue := identNamed(rng.Key, variable), identNamed(rng.Value, variable)
		if !isKey && !isValue {
			continue
		}
		if indexed != "" { // the index of a range over that very table: its elements, as by value
			if !isKey || !identNamed(rng.X, indexed) {
				return nil, false
			}
			isKey, isValue = false, true
		}
		lit := s.literal(rng.X)
		if lit == nil {
			return nil, false
		}
		switch typ := lit.Type.(type) {
		case *ast.MapType:
			if !isKey || field != "" {
				return nil, false
			}
			return s.elements(lit, func(e ast.Expr) (string, bool) {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					return "", false
				}
				return stringLiteral(kv.Key)
			})
		case *ast.ArrayType:
			if !isValue {
				return nil, false
			}
			if field == "" {
				return s.elements(lit, stringLiteral)
			}
			fields := s.structFields(typ.Elt)
			return s.elements(lit, func(e ast.Expr) (string, bool) { return fieldText(e, field, fields) })
		}
		return nil, false
	}
	return nil, false
}

func (s *tableScope) elements(lit *ast.CompositeLit, text func(ast.Expr) (string, bool)) ([]string, bool) {
	var texts []string
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok && lit.Type != nil {
			if _, isMap := lit.Type.(*ast.MapType); !isMap {
				e = kv.Value // an indexed array element, [3]T{2: {...}}
			}
		}
		x, ok := text(e)
		if !ok {
			return nil, false
		}
		texts = append(texts, x)
	}
	return texts, true
}

// fieldText is the string literal an element of a table gives its field, keyed or by position.
func fieldText(e ast.Expr, field string, fields []string) (string, bool) {
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	lit, ok := e.(*ast.CompositeLit)
	if !ok || len(lit.Elts) == 0 {
		return "", false
	}
	if _, keyed := lit.Elts[0].(*ast.KeyValueExpr); keyed {
		for _, kv := range lit.Elts {
			if kv, ok := kv.(*ast.KeyValueExpr); ok && identNamed(kv.Key, field) {
				return stringLiteral(kv.Value)
			}
		}
		return "", false // the field left at its zero value, or not there
	}
	for i, name := range fields {
		if name == field && i < len(lit.Elts) && len(fields) == len(lit.Elts) {
			return stringLiteral(lit.Elts[i])
		}
	}
	return "", false
}

// literal is the composite literal x is: x itself, or the one an identifier is bound to once, in the function
// or at the file's top level, and never assigned again in the function (nil otherwise).
func (s *tableScope) literal(x ast.Expr) *ast.CompositeLit {
	if lit, ok := x.(*ast.CompositeLit); ok {
		return lit
	}
	id, ok := x.(*ast.Ident)
	if !ok {
		return nil
	}
	var bound []ast.Expr
	assigned := 0
	ast.Inspect(s.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if rootIdent(lhs) != id.Name {
					continue
				}
				assigned++
				if n.Tok == token.DEFINE && identNamed(lhs, id.Name) && len(n.Rhs) == len(n.Lhs) {
					bound = append(bound, n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			bound = append(bound, specValue(n, id.Name)...)
		}
		return true
	})
	if s.file != nil && len(bound) == 0 {
		for _, decl := range s.file.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, spec := range gd.Specs {
					bound = append(bound, specValue(spec.(*ast.ValueSpec), id.Name)...)
				}
			}
		}
		assigned++ // the top-level binding stands for the function's definition below
	}
	if len(bound) != 1 || assigned > 1 {
		return nil
	}
	lit, _ := bound[0].(*ast.CompositeLit)
	return lit
}

func specValue(spec *ast.ValueSpec, name string) []ast.Expr {
	for i, n := range spec.Names {
		if n.Name == name && len(spec.Values) == len(spec.Names) {
			return []ast.Expr{spec.Values[i]}
		}
	}
	return nil
}

// structFields are the field names, in order, of a table's element type: a struct type written there, or one
// declared in the function or the file, through a pointer (nil when unknown or embedded fields make it unclear).
func (s *tableScope) structFields(elt ast.Expr) []string {
	if star, ok := elt.(*ast.StarExpr); ok {
		elt = star.X
	}
	if id, ok := elt.(*ast.Ident); ok {
		elt = nil
		find := func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == id.Name {
				elt = ts.Type
			}
			return true
		}
		ast.Inspect(s.body, find)
		if elt == nil && s.file != nil {
			for _, decl := range s.file.Decls {
				if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
					ast.Inspect(gd, find)
				}
			}
		}
	}
	st, ok := elt.(*ast.StructType)
	if !ok {
		return nil
	}
	var fields []string
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			return nil
		}
		for _, n := range f.Names {
			fields = append(fields, n.Name)
		}
	}
	return fields
}

func identNamed(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// rootIdent is the variable an assignment's left side writes into: x for x, x[i], x.f, x[i].f, *x.
func rootIdent(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return ""
		}
	}
}

// subtestName is the name Go's testing gives a subtest started as t.Run(text, ...) (testing's rewrite): each
// space becomes an underscore and each unprintable rune its quoted escape.
func subtestName(text string) string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case unicode.IsSpace(r):
			b.WriteRune('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// importName is the name under which f imports path ("" if it does not, "." for a dot import).
func importName(f *ast.File, path string) string {
	for _, spec := range f.Imports {
		if strings.Trim(spec.Path.Value, "`\"") != path {
			continue
		}
		if spec.Name != nil {
			return spec.Name.Name
		}
		return path[strings.LastIndex(path, "/")+1:]
	}
	return ""
}

func isTestFunc(fd *ast.FuncDecl, testing string) bool {
	name := fd.Name.Name
	if fd.Recv != nil || fd.Type.TypeParams != nil || name == "TestMain" || !strings.HasPrefix(name, "Test") {
		return false
	}
	if rest := name[len("Test"):]; rest != "" {
		if r, _ := utf8.DecodeRuneInString(rest); unicode.IsLower(r) {
			return false
		}
	}
	if fd.Type.Results != nil && len(fd.Type.Results.List) > 0 {
		return false
	}
	params := fd.Type.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	switch t := star.X.(type) {
	case *ast.SelectorExpr: // *testing.T
		pkg, ok := t.X.(*ast.Ident)
		return ok && testing != "" && testing != "." && pkg.Name == testing && t.Sel.Name == "T"
	case *ast.Ident: // *T after import . "testing"
		return testing == "." && t.Name == "T"
	}
	return false
}

// DriverName is the test function the driver adds to a package; the file it lives in is DriverFile.
const (
	DriverName = "TestBenchwardenDriver"
	DriverFile = "zz_benchwarden_driver_test.go"
)

// WriteDriver writes the driver of the package whose tests are listing, importable as importPath, to out: an
// external test file (package p_test, added with `go test -overlay`, so the user's tree is not modified) holding
// TestBenchwardenDriver, which runs the test named by $BENCHWARDEN_TEST as iterations of repeated subtests and
// prints one protocol line per iteration (docs/code-level.md).
func WriteDriver(listing TestListing, importPath, out string) error {
	if listing.Package == "main" {
		return fmt.Errorf("package %s is a command (package main): its tests cannot be driven from an external "+
			"test package", importPath)
	}
	internal := false
	for _, t := range listing.Tests {
		internal = internal || !t.External
	}
	if internal && importPath == "" {
		return fmt.Errorf("the package has tests in its own package: the driver needs its import path (-import)")
	}
	var src bytes.Buffer
	err := driverTemplate.Execute(&src, map[string]any{"Package": strings.TrimSuffix(listing.Package, "_test"),
		"ImportPath": importPath, "Internal": internal, "Tests": listing.Tests, "Driver": DriverName})
	if err != nil {
		return err
	}
	formatted, err := format.Source(src.Bytes())
	if err != nil {
		return fmt.Errorf("the generated driver does not parse: %w", err)
	}
	return os.WriteFile(out, formatted, 0o644)
}

var driverTemplate = template.Must(template.New("driver").Parse(`// Code generated by benchwarden (docs/code-level.md). DO NOT EDIT.

package {{.Package}}_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
{{if .Internal}}
	benchwardenPackage {{printf "%q" .ImportPath}}
{{end}}
)

var benchwardenTests = map[string]func(*testing.T){
{{range .Tests}}	{{printf "%q" .Name}}: {{if not .External}}benchwardenPackage.{{end}}{{.Name}},
{{end}}}

// benchwardenMaxRepetitions bounds the runs per iteration: Go's testing keeps the name of every subtest it has
// run (TestX#01, TestX#02, ...), so memory grows with every run; a test of a few microseconds fills less than
// its iteration time instead.
const benchwardenMaxRepetitions = 10000

// benchwardenClamp is lo, x or hi (written out: the module may predate Go 1.21's min and max).
func benchwardenClamp(x, lo, hi int64) int64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// {{.Driver}} runs the test function $BENCHWARDEN_TEST: $BENCHWARDEN_ITERATIONS iterations, each R runs of it
// as a subtest (R = $BENCHWARDEN_REPETITIONS, or calibrated so that an iteration's runs take about
// $BENCHWARDEN_ITERATION_NS of wall time), named $BENCHWARDEN_RUN_NAME if set, else like the test. Only the
// function's body is timed: not the subtest's start, not its t.Cleanup functions.
func {{.Driver}}(t *testing.T) {
	name := os.Getenv("BENCHWARDEN_TEST")
	if name == "" {
		t.Skip("run by benchwarden only")
	}
	runName := os.Getenv("BENCHWARDEN_RUN_NAME")
	if runName == "" {
		runName = name
	}
	stdout := os.Stdout
	os.Stdout = os.Stderr // the test's own prints must not break the protocol lines
	protocol := func(key string, value interface{}) { // one line, "v" first (the protocol's marker)
		text, _ := json.Marshal(value)
		fmt.Fprintf(stdout, "{\"v\":1,%q:%s}\n", key, text)
	}
	test, ok := benchwardenTests[name]
	if !ok {
		protocol("error", "no test function "+name+" in this package")
		t.FailNow()
	}
	iterationNs, _ := strconv.ParseInt(os.Getenv("BENCHWARDEN_ITERATION_NS"), 10, 64)
	iterations, _ := strconv.Atoi(os.Getenv("BENCHWARDEN_ITERATIONS"))
	repetitions, _ := strconv.Atoi(os.Getenv("BENCHWARDEN_REPETITIONS"))
	var body time.Duration
	once := func() bool {
		var sub *testing.T
		passed := t.Run(runName, func(t *testing.T) {
			sub = t
			start := time.Now()
			defer func() { body += time.Since(start) }()
			test(t)
		})
		switch {
		case !passed:
			protocol("error", "the test failed (its output is below)")
			t.FailNow()
		case sub != nil && sub.Skipped():
			protocol("skip", name+" skipped itself (t.Skip)")
			return false
		}
		return true
	}
	if !once() { // once before anything is timed: a failing or skipping test says so here
		return
	}
	if repetitions < 1 { // grow the batch until its runs (cleanups and all) take a tenth of an iteration
		for batch := 1; ; {
			start := time.Now()
			for i := 0; i < batch; i++ {
				if !once() {
					return
				}
			}
			elapsed := time.Since(start).Nanoseconds() + 1
			if 10*elapsed >= iterationNs || batch >= benchwardenMaxRepetitions {
				repetitions = int(benchwardenClamp(int64(batch)*iterationNs/elapsed, 1, benchwardenMaxRepetitions))
				break
			}
			batch = int(benchwardenClamp(int64(batch)*benchwardenClamp(iterationNs/(10*elapsed), 2, 10), 1, benchwardenMaxRepetitions))
		}
	}
	for k := 1; k <= iterations; k++ {
		body = 0
		for i := 0; i < repetitions; i++ {
			if !once() {
				return
			}
		}
		ns := benchwardenClamp(body.Nanoseconds(), 1, body.Nanoseconds()+1)
		fmt.Fprintf(stdout, "{\"v\":1,\"iteration\":%d,\"ns_per_op\":%g,\"ops\":%d,\"elapsed_ns\":%d}\n",
			k, float64(ns)/float64(repetitions), repetitions, ns)
	}
}
`))
