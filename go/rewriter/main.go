// Command rewrite is benchwarden's Go source tool (stdlib go/ast, go/parser, go/printer only): the rewriter of
// `benchwarden assess`, which always works on a copy of a module that benchwarden made and rewrites in place, and
// the test lister and driver writer of the gounit adapter, which only reads.
//
//	rewrite -dir DIR -func example.com/wordstat.Tokenize -factor 0.5
//	    slow one function down: each call takes (1+factor) times its own duration (see Slowdown); -func is
//	    repeatable: several functions slowed at once (see SlowdownAll)
//	rewrite -dir DIR -func F1 -func F2 ... -switchable
//	    a switchable build: no factor fixed; function i is slowed by the factor $BENCHWARDEN_SLOW gives switch i
//	    when the process starts ("0:0.1,3:0.1"), and runs unslowed otherwise (see SlowdownSwitchable)
//	rewrite -dir DIR -trace example.com/wordstat [-trace other/pkg] -index FILE
//	    count calls of every exported function and method (see Trace); -trace all = every package;
//	    with -all-functions, of unexported ones too (what `benchwarden affected` needs)
//	rewrite -units FILE
//	    the functions of one file and the rest of it, printed without comments (see Units). Reads FILE only.
//	rewrite -tests PKGDIR [-driver OUT.go -import IMPORTPATH]
//	    list the package's test functions as `go test` finds them (see ListTests); with -driver, also write the
//	    driver that runs one of them as a workload (kind = "gounit", see WriteDriver). Reads PKGDIR only.
//
// On success it prints one JSON line {"v":1,...} describing what it did; on failure a message on
// stderr and exit status 2.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

type listFlag []string

func (l *listFlag) String() string     { return fmt.Sprint(*l) }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("rewrite", flag.ContinueOnError)
	flags.SetOutput(stderr)
	dir := flags.String("dir", "", "root of the module copy to rewrite (holds go.mod)")
	var funcs listFlag
	flags.Var(&funcs, "func", "function to slow down: pkgpath.Func, pkgpath.(*T).Method or pkgpath.T.Method (repeatable)")
	factor := flags.Float64("factor", -1, "relative slowdown v >= 0 (0.5: each call takes 1.5x as long)")
	index := flags.String("index", "", "trace mode: where to write the index (JSON lines)")
	var traced listFlag
	flags.Var(&traced, "trace", "trace mode: package to trace (repeatable; 'all' = every package of the module)")
	tests := flags.String("tests", "", "tests mode: the package directory whose test functions to list")
	driver := flags.String("driver", "", "tests mode: where to write the driver of the package's tests")
	importPath := flags.String("import", "", "tests mode: the package's import path (for the driver)")
	switchable := flags.Bool("switchable", false, "with -func: factors read at start-up from $"+SwitchEnv+", none fixed")
	allFunctions := flags.Bool("all-functions", false, "trace mode: unexported functions and methods too")
	units := flags.String("units", "", "units mode: the Go file whose functions to print")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	enc := json.NewEncoder(stdout)
	fail := func(err error) int {
		fmt.Fprintf(stderr, "rewrite: %v\n", err)
		return 2
	}
	if *tests != "" {
		listing, err := ListTests(*tests)
		if err != nil {
			return fail(err)
		}
		out := map[string]any{"v": 1, "mode": "tests", "package": listing.Package, "tests": listing.Tests}
		if *driver != "" && len(listing.Tests) > 0 {
			if listing.Package == "main" { // reported per test by the adapter, not an error for the whole module
				out["refused"] = "the tests of a command (package main) cannot be driven from an external test package"
			} else if err := WriteDriver(listing, *importPath, *driver); err != nil {
				return fail(err)
			}
		}
		enc.Encode(out)
		return 0
	}
	if *units != "" {
		found, err := Units(*units)
		if err != nil {
			return fail(err)
		}
		enc.Encode(map[string]any{"v": 1, "mode": "units", "package": found.Package, "functions": found.Functions,
			"skeleton": found.Skeleton})
		return 0
	}
	if *dir == "" {
		return fail(fmt.Errorf("-dir is required"))
	}
	m, err := OpenModule(*dir)
	if err != nil {
		return fail(err)
	}
	switch {
	case *switchable:
		if len(funcs) == 0 || len(traced) > 0 || *factor >= 0 {
			return fail(fmt.Errorf("-switchable goes with -func only (the factors come from $%s at run time)", SwitchEnv))
		}
		results, err := SlowdownSwitchable(m, funcs)
		if err != nil {
			return fail(err)
		}
		enc.Encode(map[string]any{"v": 1, "mode": "switchable", "functions": results, "env": SwitchEnv})
	case len(funcs) == 1 && len(traced) == 0:
		if *factor < 0 {
			return fail(fmt.Errorf("-factor is required with -func (a number >= 0)"))
		}
		res, err := Slowdown(m, funcs[0], *factor)
		if err != nil {
			return fail(err)
		}
		enc.Encode(map[string]any{"v": 1, "mode": "slowdown", "function": res.Function, "files": res.Files,
			"recursive": res.Recursive, "factor": *factor})
	case len(funcs) > 1 && len(traced) == 0:
		if *factor < 0 {
			return fail(fmt.Errorf("-factor is required with -func (a number >= 0)"))
		}
		results, err := SlowdownAll(m, funcs, *factor)
		if err != nil {
			return fail(err)
		}
		enc.Encode(map[string]any{"v": 1, "mode": "slowdown", "functions": results, "factor": *factor})
	case len(traced) > 0 && len(funcs) == 0:
		if *index == "" {
			return fail(fmt.Errorf("-index is required with -trace"))
		}
		pkgs := []string(traced)
		if len(pkgs) == 1 && pkgs[0] == "all" {
			if pkgs, err = m.Packages(); err != nil {
				return fail(err)
			}
		}
		entries, err := Trace(m, pkgs, *index, *allFunctions)
		if err != nil {
			return fail(err)
		}
		enc.Encode(map[string]any{"v": 1, "mode": "trace", "packages": pkgs, "functions": len(entries), "index": *index})
	default:
		return fail(fmt.Errorf("give either -func (with -factor) or -trace (with -index)"))
	}
	return 0
}
