package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestListTestsFindsWhatGoTestRuns(t *testing.T) {
	listing, err := ListTests(filepath.Join("testdata", "gounit"))
	if err != nil {
		t.Fatal(err)
	}
	want := []TestFunc{{"Test", false, nil}, {"TestSum", false, nil}, {"TestÜber", false, nil}, {"TestExternal", true, nil}}
	if listing.Package != "lib" || !reflect.DeepEqual(listing.Tests, want) {
		t.Fatalf("got %s %+v, want lib %+v", listing.Package, listing.Tests, want)
	}
}

func TestDriverReferencesInternalTestsThroughTheImportAndParses(t *testing.T) {
	listing, err := ListTests(filepath.Join("testdata", "gounit"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), DriverFile)
	if err := WriteDriver(listing, "example.com/gounit", out); err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), out, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name.Name != "lib_test" {
		t.Errorf("driver package %s, want lib_test (external)", f.Name.Name)
	}
	raw, _ := os.ReadFile(out)
	src := strings.Join(strings.Fields(string(raw)), " ") // gofmt aligns the map's values
	for _, entry := range []string{`"TestSum": benchwardenPackage.TestSum`, `"TestExternal": TestExternal`,
		`benchwardenPackage "example.com/gounit"`, "func " + DriverName + "(t *testing.T)"} {
		if !strings.Contains(src, entry) {
			t.Errorf("driver lacks %q:\n%s", entry, src)
		}
	}
}

func TestDriverRefusesWhatItCannotDrive(t *testing.T) {
	out := filepath.Join(t.TempDir(), DriverFile)
	if err := WriteDriver(TestListing{Package: "main", Tests: []TestFunc{{Name: "TestX"}}}, "x/cmd", out); err == nil ||
		!strings.Contains(err.Error(), "package main") {
		t.Errorf("a command's tests: got %v", err)
	}
	if err := WriteDriver(TestListing{Package: "p", Tests: []TestFunc{{Name: "TestX"}}}, "", out); err == nil ||
		!strings.Contains(err.Error(), "-import") {
		t.Errorf("internal tests without an import path: got %v", err)
	}
}

func TestSubtestsAreTheNamesTheSourceGivesTheTestsOwnRunCalls(t *testing.T) {
	src := `package p

import "testing"

type fileCase struct {
	in   int
	name string
}

var fileTable = []fileCase{{1, "file one"}, {2, "file two"}}

func TestLiterals(t *testing.T) {
	t.Run("plain", func(t *testing.T) {
		t.Run("nested", func(t *testing.T) {}) // the subtest's own t: a level further down
	})
	t.Run("with space\tand tab", func(*testing.T) {})
	if true {
		t.Run(` + "`raw`" + `, check)
	}
	t.Run("twice", check)
	t.Run("twice", check) // Go runs the second as twice#01: neither is listed
	t.Run("a/b", check)   // would read as two levels
	other.Run("not t", check)
	go func(u *testing.T) { t.Run("through a closure", check) }(nil)
	t.Run(fmt.Sprint(1), check) // computed at run time
}

func TestTables(t *testing.T) {
	tests := []struct {
		name string
		want int
	}{
		{name: "keyed a", want: 1},
		{want: 2, name: "keyed b"},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) { _ = tt.want })
	}
	for _, tc := range []struct{ in, name string }{{"x", "positional"}} {
		t.Run(tc.name, check)
	}
	for _, c := range fileTable { // the file's table, positional by its declared type
		t.Run(c.name, check)
	}
	for _, p := range []*fileCase{{name: "pointer"}, &fileCase{name: "address"}} {
		t.Run(p.name, check)
	}
	for name := range map[string]int{"map key": 1} {
		t.Run(name, check)
	}
	for _, s := range []string{"str"} {
		t.Run(s, check)
	}
	indexed := []struct{ name string }{{name: "by index"}}
	for i := range indexed {
		t.Run(indexed[i].name, check)
	}
	words := []string{"word"}
	for i := range words {
		t.Run(words[i], check)
	}
}

func TestTablesNotKnown(t *testing.T) {
	mutated := []struct{ name string }{{name: "m"}}
	mutated = append(mutated, struct{ name string }{name: "added"})
	for _, tt := range mutated { // assigned again: its names are not all in the literal
		t.Run(tt.name, check)
	}
	for _, tt := range []struct{ name string }{{name: "known"}, {}} { // one element says no name
		t.Run(tt.name, check)
	}
	for _, tt := range []struct{ name string }{{name: "dup"}, {name: "dup"}} {
		t.Run(tt.name, check)
	}
	for _, tt := range cases() {
		t.Run(tt.name, check)
	}
	for i, tt := range []struct{ name string }{{name: "by index"}} {
		t.Run(tt.other, check) // another field
		t.Run(i, check)        // the index
	}
	for _, tt := range []struct{ name string }{{name: "sub"}} {
		t.Run("outer", func(t *testing.T) { t.Run(tt.name, check) }) // a level further down
	}
	other := []struct{ name string }{{name: "other"}}
	for i := range mutated {
		t.Run(other[i].name, check) // indexes of another table
	}
}

func TestUnnamed(_ *testing.T) {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p_test.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, decl := range f.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok {
			got[fd.Name.Name] = Subtests(f, fd)
		}
	}
	want := map[string][]string{
		"TestLiterals": {"plain", "with_space_and_tab", "raw", "through_a_closure"},
		"TestTables": {"keyed_a", "keyed_b", "positional", "file_one", "file_two", "pointer", "address", "map_key",
			"str", "by_index", "word"},
		"TestTablesNotKnown": {"outer"},
		"TestUnnamed":        nil}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
