package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// SlowdownFile is the helper file written next to the slowed function.
const SlowdownFile = "benchwarden_slowdown.go"

// SlowdownResult says what was rewritten.
type SlowdownResult struct {
	Function  string   `json:"function"`
	Files     []string `json:"files"`
	Recursive bool     `json:"recursive"`
	Switch    int      `json:"switch"` // its number in SwitchEnv (a switchable build), else NoSwitch
}

// SwitchEnv names the environment variable that a switchable build reads at start-up: "switch:factor" items,
// comma-separated ("0:0.1,3:0.1" slows the functions of switches 0 and 3 by 10 %); a function not named runs
// unslowed.
const SwitchEnv = "BENCHWARDEN_SLOW"

// NoSwitch marks a function whose factor was fixed when the module was rewritten.
const NoSwitch = -1

// Slowdown rewrites the function named by spec in module m so that each call takes (1+factor) times its
// own duration: "defer benchwardenSlowExit(benchwardenSlowEnter())" becomes its first statement (the
// deferred call's argument is evaluated there, at entry; the call itself runs at every return and
// during a panic), and a generated helper file in the same package busy-waits factor x elapsed.
//
// Nesting: Go has no goroutine-local storage to find the outermost activation cheaply, so
//   - a function that does not call itself (the common case) waits factor x each activation's own
//     elapsed time; this is exact under any concurrency (b.RunParallel);
//   - a function that calls itself directly (found in its body) uses a process-wide depth counter:
//     only the outermost activation waits, factor x its whole elapsed time (nested activations
//     included), so its total becomes (1+factor) x its unslowed time once, as the Java agent does
//     per thread. With several goroutines inside the recursive function at once, an activation that
//     starts while another goroutine's is in progress counts as nested and is not slowed: the
//     slowdown is then underestimated.
//
// Indirect recursion (f -> g -> f) is not detected and compounds (each level adds its own factor).
func Slowdown(m Module, text string, factor float64) (SlowdownResult, error) {
	return slowdown(m, text, factor, "", NoSwitch)
}

// SlowdownAll slows several functions down at once, each as Slowdown does (group testing in `benchwarden
// assess`: functions that no benchmark reaches together share one rewritten, compiled copy of the module). The
// first function gets the same helper as Slowdown; the i-th further one its own helper file and identifiers
// (suffix i), so functions of one package do not share bookkeeping. A function named twice is an error.
func SlowdownAll(m Module, texts []string, factor float64) ([]SlowdownResult, error) {
	return slowdownAll(m, texts, factor, false)
}

// SlowdownSwitchable rewrites every function of texts as SlowdownAll does, but with no factor fixed: the i-th
// function is switch i of SwitchEnv, read once when the process starts, and runs unslowed when it is not named
// there. One compiled copy then serves as the A/A control (nothing named) and as every slowed variant (`benchwarden
// assess`, docs/assess.md): the variants differ from their control only in the waits, not in code layout.
// A function that is off costs one load and branch per call: its probe is "if benchwardenSlowOn { defer ... }",
// so it reads no clock; like every rewritten function, it is no longer inlined.
func SlowdownSwitchable(m Module, texts []string) ([]SlowdownResult, error) {
	return slowdownAll(m, texts, 0, true)
}

func slowdownAll(m Module, texts []string, factor float64, switchable bool) ([]SlowdownResult, error) {
	seen := map[string]bool{}
	for _, text := range texts { // before rewriting anything
		spec, _, err := resolveSpec(m, text)
		if err != nil {
			return nil, err
		}
		if seen[spec.String()] {
			return nil, fmt.Errorf("function %s given twice", spec)
		}
		seen[spec.String()] = true
	}
	var results []SlowdownResult
	for i, text := range texts {
		suffix := ""
		if i > 0 {
			suffix = strconv.Itoa(i)
		}
		sw := NoSwitch
		if switchable {
			sw = i
		}
		res, err := slowdown(m, text, factor, suffix, sw)
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return results, nil
}

func slowdown(m Module, text string, factor float64, suffix string, sw int) (SlowdownResult, error) {
	if !(factor >= 0) {
		return SlowdownResult{}, fmt.Errorf("-factor must be a number >= 0, got %v", factor)
	}
	spec, dir, err := resolveSpec(m, text)
	if err != nil {
		return SlowdownResult{}, err
	}
	fset := token.NewFileSet()
	files, err := ParsePackage(fset, dir)
	if err != nil {
		return SlowdownResult{}, err
	}
	var changed []ParsedFile
	recursive := false
	for _, pf := range files {
		hit := false
		for _, decl := range pf.File.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Name.Name != spec.Name || receiverName(fd) != spec.Recv {
				continue
			}
			recursive = recursive || callsItself(fd)
			prepend(fd, deferSlowdown(suffix))
			hit = true
		}
		if hit {
			changed = append(changed, pf)
		}
	}
	if len(changed) == 0 {
		return SlowdownResult{}, fmt.Errorf("function %s not found in %s; declared there: %s", spec, dir,
			strings.Join(declaredNames(spec.PkgPath, files), ", "))
	}
	result := SlowdownResult{Function: spec.String(), Recursive: recursive, Switch: sw}
	for _, pf := range changed {
		if err := WriteFile(fset, pf); err != nil {
			return SlowdownResult{}, err
		}
		rel, _ := filepath.Rel(m.Dir, pf.Path)
		result.Files = append(result.Files, filepath.ToSlash(rel))
	}
	helper := slowdownHelper(changed[0].File.Name.Name, factor, recursive, suffix, sw)
	file := SlowdownFile
	if suffix != "" {
		file = strings.TrimSuffix(SlowdownFile, ".go") + "_" + suffix + ".go"
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(helper), 0o644); err != nil {
		return SlowdownResult{}, err
	}
	return result, nil
}

// resolveSpec finds the candidate reading of text whose package is in the module.
func resolveSpec(m Module, text string) (FuncSpec, string, error) {
	specs, err := ParseFuncSpec(text)
	if err != nil {
		return FuncSpec{}, "", err
	}
	for _, s := range specs {
		if dir := m.PackageDir(s.PkgPath); dir != "" {
			if st, err := os.Stat(dir); err == nil && st.IsDir() {
				return s, dir, nil
			}
		}
	}
	return FuncSpec{}, "", fmt.Errorf("function %q: its package is not in module %s (%s)", text, m.Path, m.Dir)
}

// deferSlowdown is the probe: "if benchwardenSlowOn { defer benchwardenSlowExit(benchwardenSlowEnter()) }".
// A function whose slowdown is off (a switchable build's control) reads no clock; the defer stays open-coded.
func deferSlowdown(suffix string) ast.Stmt {
	enter := &ast.CallExpr{Fun: ast.NewIdent("benchwardenSlow" + suffix + "Enter")}
	deferred := &ast.DeferStmt{Call: &ast.CallExpr{Fun: ast.NewIdent("benchwardenSlow" + suffix + "Exit"),
		Args: []ast.Expr{enter}}}
	return &ast.IfStmt{Cond: ast.NewIdent("benchwardenSlow" + suffix + "On"),
		Body: &ast.BlockStmt{List: []ast.Stmt{deferred}}}
}

// callsItself reports whether the body calls a function (or any method) of the declaration's own name.
func callsItself(fd *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return !found
		}
		switch fun := call.Fun.(type) {
		case *ast.Ident:
			found = found || (fd.Recv == nil && fun.Name == fd.Name.Name)
		case *ast.SelectorExpr:
			found = found || (fd.Recv != nil && fun.Sel.Name == fd.Name.Name)
		}
		return !found
	})
	return found
}

func declaredNames(pkg string, files []ParsedFile) []string {
	var names []string
	for _, pf := range files {
		for _, decl := range pf.File.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok {
				names = append(names, qualifiedName(pkg, fd))
			}
		}
	}
	sort.Strings(names)
	return names
}

// slowdownHelper is the helper file's text; every identifier it declares starts with "benchwardenSlow" + suffix.
// sw is the function's switch in SwitchEnv, or NoSwitch when factor is fixed.
func slowdownHelper(pkgName string, factor float64, recursive bool, suffix string, sw int) string {
	text := fmt.Sprintf(`// Code generated by benchwarden's rewriter (benchwarden assess); DO NOT EDIT.
// It slows one function of this package down for a slowdown-injection experiment.

package %s

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// benchwardenSlowSwitch is the function's switch in $BENCHWARDEN_SLOW, or -1 when its factor is fixed.
const benchwardenSlowSwitch = %d

// benchwardenSlowRecursive: the function calls itself, so only the outermost activation waits.
const benchwardenSlowRecursive = %v

// benchwardenSlowFactor is the relative slowdown v: each activation takes (1+v) times as long.
var benchwardenSlowFactor = benchwardenSlowStartFactor(%v)

var (
	benchwardenSlowOn         bool  // the probe runs (set by init when v > 0)
	benchwardenSlowOverheadNs int64 // cost of one outermost enter/exit pair, subtracted from its wait
	benchwardenSlowNestedNs   int64 // recursive mode: cost of one nested enter/exit pair
	benchwardenSlowDepth      int64 // recursive mode: activations in progress (process-wide)
	benchwardenSlowNested     int64 // recursive mode: nested activations so far
)

// benchwardenSlowStartFactor is the fixed factor, or this function's factor in $BENCHWARDEN_SLOW
// ("switch:factor,..."), 0 when it is not named there.
func benchwardenSlowStartFactor(fixed float64) float64 {
	if benchwardenSlowSwitch < 0 {
		return fixed
	}
	for _, item := range strings.Split(os.Getenv("BENCHWARDEN_SLOW"), ",") {
		parts := strings.SplitN(item, ":", 2)
		if len(parts) != 2 || parts[0] != strconv.Itoa(benchwardenSlowSwitch) {
			continue
		}
		v, err := strconv.ParseFloat(parts[1], 64)
		if err != nil || !(v >= 0) {
			panic("benchwarden: BENCHWARDEN_SLOW: a factor must be a number >= 0, got " + strconv.Quote(item))
		}
		return v
	}
	return 0
}

type benchwardenSlowToken struct {
	start  time.Time
	nested int64 // nested activations before this one started; -1 for a nested activation
}

func benchwardenSlowEnter() benchwardenSlowToken {
	if benchwardenSlowRecursive && atomic.AddInt64(&benchwardenSlowDepth, 1) > 1 {
		atomic.AddInt64(&benchwardenSlowNested, 1)
		return benchwardenSlowToken{nested: -1}
	}
	return benchwardenSlowToken{start: time.Now(), nested: atomic.LoadInt64(&benchwardenSlowNested)}
}

// benchwardenSlowExit busy-waits so that the activation takes (1+v) times its unslowed duration. In
// recursive mode only the outermost activation waits, for v x its whole elapsed time, minus what the
// nested activations' own bookkeeping added (so deep recursion is not over-delayed by the machinery).
func benchwardenSlowExit(t benchwardenSlowToken) {
	if benchwardenSlowRecursive {
		atomic.AddInt64(&benchwardenSlowDepth, -1)
		if t.nested < 0 {
			return
		}
	}
	elapsedNs := time.Since(t.start).Nanoseconds()
	if !benchwardenSlowOn {
		return
	}
	waitNs := int64(benchwardenSlowFactor*float64(elapsedNs)) - benchwardenSlowOverheadNs
	if benchwardenSlowRecursive {
		nested := atomic.LoadInt64(&benchwardenSlowNested) - t.nested
		waitNs -= int64((1 + benchwardenSlowFactor) * float64(nested*benchwardenSlowNestedNs))
	}
	if waitNs > 0 {
		end := time.Duration(elapsedNs + waitNs)
		for time.Since(t.start) < end {
		}
	}
}

// init measures the bookkeeping costs (median of 9 rounds of 20000 pairs, waits off) and turns the probe on,
// when there is a slowdown to inject.
func init() {
	if !(benchwardenSlowFactor > 0) {
		return
	}
	benchwardenSlowOverheadNs = benchwardenSlowMedianPairNs()
	if benchwardenSlowRecursive {
		outer := benchwardenSlowEnter()
		benchwardenSlowNestedNs = benchwardenSlowMedianPairNs()
		benchwardenSlowExit(outer)
	}
	benchwardenSlowNested = 0
	benchwardenSlowOn = true
}

func benchwardenSlowMedianPairNs() int64 {
	rounds := make([]int64, 9)
	for r := range rounds {
		start := time.Now()
		for i := 0; i < 20000; i++ {
			benchwardenSlowExit(benchwardenSlowEnter())
		}
		rounds[r] = time.Since(start).Nanoseconds() / 20000
	}
	for i := 1; i < len(rounds); i++ {
		for j := i; j > 0 && rounds[j] < rounds[j-1]; j-- {
			rounds[j], rounds[j-1] = rounds[j-1], rounds[j]
		}
	}
	return rounds[len(rounds)/2]
}
`, pkgName, sw, recursive, factor)
	return strings.ReplaceAll(text, "benchwardenSlow", "benchwardenSlow"+suffix)
}
