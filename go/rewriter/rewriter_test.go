package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// copyProbe copies testdata/probe into a temporary directory: the rewriter only ever edits copies.
func copyProbe(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir("testdata/probe")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata/probe", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func goTest(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"test", "-count=1"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test %v in %s failed: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

func rewrite(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("rewrite %v: exit %d: %s", args, code, stderr.String())
	}
	var result map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &result); err != nil {
		t.Fatalf("rewrite printed %q: %v", stdout.String(), err)
	}
	return result
}

func TestSlowdownPrecision(t *testing.T) {
	for _, n := range []string{"1000", "2000"} {
		dir := copyProbe(t)
		res := rewrite(t, "-dir", dir, "-func", "example.com/probe.Work", "-factor", "0.5")
		if res["recursive"] != false || res["function"] != "example.com/probe.Work" {
			t.Fatalf("unexpected result %v", res)
		}
		out := goTest(t, dir, []string{"PROBE_FACTOR=0.5", "PROBE_N=" + n, "PROBE_TARGET=work"}, "-v", "-run", "TestInjectedSlowdown", ".")
		t.Log(strings.TrimSpace(out))
	}
}

func TestRecursiveSlowdownCountsOnce(t *testing.T) {
	dir := copyProbe(t)
	res := rewrite(t, "-dir", dir, "-func", "example.com/probe.Recurse", "-factor", "1")
	if res["recursive"] != true {
		t.Fatalf("Recurse calls itself: expected recursive mode, got %v", res)
	}
	out := goTest(t, dir, []string{"PROBE_FACTOR=1", "PROBE_N=2000", "PROBE_TARGET=recurse"}, "-v", "-run", "TestInjectedSlowdown", ".")
	t.Log(strings.TrimSpace(out))
}

// Several functions of one package slowed at once (group testing): each keeps its own bookkeeping, the
// recursive one its depth counter, and both are slowed; the same function twice is refused.
func TestSlowdownAllSlowsEachFunctionWithItsOwnHelper(t *testing.T) {
	dir := copyProbe(t)
	res := rewrite(t, "-dir", dir, "-func", "example.com/probe.Work", "-func", "example.com/probe.Recurse", "-factor", "1")
	functions, _ := res["functions"].([]any)
	if len(functions) != 2 {
		t.Fatalf("expected two functions in %v", res)
	}
	first, second := functions[0].(map[string]any), functions[1].(map[string]any)
	if first["function"] != "example.com/probe.Work" || first["recursive"] != false || second["recursive"] != true {
		t.Fatalf("unexpected result %v", res)
	}
	for _, file := range []string{"benchwarden_slowdown.go", "benchwarden_slowdown_1.go"} {
		if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
			t.Fatalf("helper %s not written: %v", file, err)
		}
	}
	for _, target := range []string{"work", "recurse"} {
		out := goTest(t, dir, []string{"PROBE_FACTOR=1", "PROBE_N=2000", "PROBE_TARGET=" + target}, "-v", "-run", "TestInjectedSlowdown", ".")
		t.Log(strings.TrimSpace(out))
	}
	goTest(t, dir, nil, "./...") // the rewritten module builds, vets and passes its own tests

	var stdout, stderr bytes.Buffer
	again := copyProbe(t)
	if code := run([]string{"-dir", again, "-func", "example.com/probe.Work", "-func", "example.com/probe.Work", "-factor", "1"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "given twice") {
		t.Fatalf("the same function twice: exit %d, %q", code, stderr.String())
	}
}

// One switchable build: each function is slowed only when $BENCHWARDEN_SLOW names its switch.
func TestSwitchableBuildSlowsOnlyTheFunctionsItsEnvironmentNames(t *testing.T) {
	dir := copyProbe(t)
	res := rewrite(t, "-dir", dir, "-func", "example.com/probe.Work", "-func", "example.com/probe.Recurse", "-switchable")
	functions, _ := res["functions"].([]any)
	if res["mode"] != "switchable" || res["env"] != SwitchEnv || len(functions) != 2 {
		t.Fatalf("unexpected result %v", res)
	}
	for i, f := range functions {
		if sw := f.(map[string]any)["switch"]; sw != float64(i) {
			t.Fatalf("function %d has switch %v: %v", i, sw, res)
		}
	}
	binary := filepath.Join(t.TempDir(), "probe.test")
	cmd := exec.Command("go", "test", "-c", "-o", binary, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	runProbe := func(env ...string) (string, error) {
		cmd := exec.Command(binary, "-test.v", "-test.run", "TestInjectedSlowdown")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, c := range [][]string{
		{SwitchEnv + "=1:1", "PROBE_FACTOR=1", "PROBE_TARGET=recurse"}, // named: slowed
		{SwitchEnv + "=1:1", "PROBE_FACTOR=0", "PROBE_TARGET=work"},    // not named: off
		{SwitchEnv + "=0:1", "PROBE_FACTOR=1", "PROBE_TARGET=work"},
		{"PROBE_FACTOR=0", "PROBE_TARGET=recurse"}, // nothing named: the control
	} {
		if out, err := runProbe(append(c, "PROBE_N=2000")...); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		} else {
			t.Log(c, strings.TrimSpace(out))
		}
	}
	if out, err := runProbe(SwitchEnv+"=0:fast", "PROBE_FACTOR=1", "PROBE_TARGET=work"); err == nil ||
		!strings.Contains(out, "a factor must be a number >= 0") {
		t.Fatalf("a malformed factor was not refused: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-dir", copyProbe(t), "-func", "example.com/probe.Work", "-switchable", "-factor", "1"}, &stdout, &stderr); code != 2 {
		t.Fatalf("-switchable with -factor: exit %d, %q", code, stderr.String())
	}
}

func TestPanickingCallIsSlowedAndModuleStillPasses(t *testing.T) {
	dir := copyProbe(t)
	rewrite(t, "-dir", dir, "-func", "example.com/probe.Panics", "-factor", "1")
	goTest(t, dir, []string{"PROBE_TARGET=panics"}, "-run", "TestPanicStillSlowed", ".")
	goTest(t, dir, nil, "./...") // the rewritten module builds, vets and passes its own tests
}

func TestTraceCountsExactly(t *testing.T) {
	dir := copyProbe(t)
	index := filepath.Join(t.TempDir(), "index.jsonl")
	res := rewrite(t, "-dir", dir, "-trace", "all", "-index", index)
	if res["functions"].(float64) != 8 {
		t.Fatalf("expected 8 exported functions and methods of exported types, got %v", res)
	}
	traceDir := t.TempDir()
	goTest(t, dir, []string{"BENCHWARDEN_TRACE_DIR=" + traceDir}, "-run", "TestTraceCalls", ".")
	counts := readCounts(t, index, traceDir)
	want := map[string]uint64{
		"example.com/probe.Add": 1234, "example.com/probe.(*Counter).Inc": 56, "example.com/probe.Counter.Value": 1,
		"example.com/probe.Work": 0, "example.com/probe.Recurse": 0,
	}
	for method, n := range want {
		if counts[method] != n {
			t.Errorf("%s: %d calls counted, want %d", method, counts[method], n)
		}
	}
	for method := range counts {
		if strings.Contains(method, "hidden") || strings.Contains(method, "double") {
			t.Errorf("%s is not public API but was traced", method)
		}
	}
	// Run again: counts accumulate in the shared file (as parallel test binaries would add up).
	goTest(t, dir, []string{"BENCHWARDEN_TRACE_DIR=" + traceDir}, "-run", "TestTraceCalls", ".")
	if again := readCounts(t, index, traceDir); again["example.com/probe.Add"] != 2468 {
		t.Fatalf("second run: Add counted %d, want 2468", again["example.com/probe.Add"])
	}
	goTest(t, dir, nil, "./...") // without the variable, tracing is private memory: tests pass as before
}

func readCounts(t *testing.T, index, traceDir string) map[string]uint64 {
	t.Helper()
	f, err := os.Open(index)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]uint64{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		var e IndexEntry
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(traceDir, e.File))
		if err != nil {
			counts[e.Method] = 0
			continue
		}
		counts[e.Method] = binary.NativeEndian.Uint64(data[8*e.Slot:])
	}
	return counts
}

func TestErrorsNameWhatIsWrong(t *testing.T) {
	dir := copyProbe(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-dir", dir, "-func", "example.com/probe.Nope", "-factor", "1"}, &stdout, &stderr); code != 2 {
		t.Fatalf("exit %d", code)
	}
	if msg := stderr.String(); !strings.Contains(msg, "example.com/probe.Nope not found") || !strings.Contains(msg, "example.com/probe.Work") {
		t.Fatalf("message should name the function and list the declared ones: %s", msg)
	}
	stderr.Reset()
	run([]string{"-dir", dir, "-func", "other.com/x.F", "-factor", "1"}, &stdout, &stderr)
	if !strings.Contains(stderr.String(), "not in module example.com/probe") {
		t.Fatalf("got %s", stderr.String())
	}
	stderr.Reset()
	run([]string{"-dir", dir, "-func", "example.com/probe.Work"}, &stdout, &stderr)
	if !strings.Contains(stderr.String(), "-factor is required") {
		t.Fatalf("got %s", stderr.String())
	}
}

func TestTraceAllFunctionsCountsUnexportedOnesToo(t *testing.T) {
	dir := copyProbe(t)
	index := filepath.Join(t.TempDir(), "index.jsonl")
	res := rewrite(t, "-dir", dir, "-trace", "all", "-all-functions", "-index", index)
	if res["functions"].(float64) != 10 {
		t.Fatalf("expected the 8 exported functions, double and hidden.Visible, got %v", res)
	}
	traceDir := t.TempDir()
	goTest(t, dir, []string{"BENCHWARDEN_TRACE_DIR=" + traceDir}, "-run", "TestTraceCalls", ".")
	counts := readCounts(t, index, traceDir)
	want := map[string]uint64{"example.com/probe.Add": 1234, "example.com/probe.double": 1234,
		"example.com/probe.hidden.Visible": 1, "example.com/probe.Work": 0}
	for method, n := range want {
		if counts[method] != n {
			t.Errorf("%s: %d calls counted, want %d", method, counts[method], n)
		}
	}
}

func TestUnitsSplitsFunctionsFromTheRestWithoutComments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "u.go")
	src := "package p\n\nimport \"fmt\"\n\n// X doc\nvar X = 1\n\nfunc init() { X = 2 }\n\n" +
		"// F doc\nfunc F(a int) int { return a + 1 } // trailing\n\nfunc (s *S) M() { fmt.Println() }\n\n" +
		"func (s S[T]) N() {}\n\nfunc f() {}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res := rewrite(t, "-units", path)
	var names []string
	for _, f := range res["functions"].([]any) {
		fn := f.(map[string]any)
		names = append(names, fn["name"].(string))
		if strings.Contains(fn["code"].(string), "doc") || strings.Contains(fn["code"].(string), "trailing") {
			t.Errorf("%s: comments are not code: %q", fn["name"], fn["code"])
		}
	}
	if strings.Join(names, " ") != "F (*S).M S.N f" {
		t.Errorf("functions %v, want F (*S).M S.N f (init belongs to the skeleton)", names)
	}
	skeleton := res["skeleton"].(string)
	if !strings.Contains(skeleton, "var X = 1") || !strings.Contains(skeleton, "func init()") ||
		strings.Contains(skeleton, "doc") || res["package"] != "p" {
		t.Errorf("skeleton %q / package %v", skeleton, res["package"])
	}
}
