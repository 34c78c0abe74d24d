package main

import (
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
	want := []TestFunc{{"Test", false}, {"TestSum", false}, {"TestÜber", false}, {"TestExternal", true}}
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
	if err := WriteDriver(TestListing{Package: "main", Tests: []TestFunc{{"TestX", false}}}, "x/cmd", out); err == nil ||
		!strings.Contains(err.Error(), "package main") {
		t.Errorf("a command's tests: got %v", err)
	}
	if err := WriteDriver(TestListing{Package: "p", Tests: []TestFunc{{"TestX", false}}}, "", out); err == nil ||
		!strings.Contains(err.Error(), "-import") {
		t.Errorf("internal tests without an import path: got %v", err)
	}
}
