package main

import (
	"fmt"
	"strings"
)

// FuncSpec names one function or method the way Go's runtime does:
//
//	example.com/wordstat.Tokenize          a function
//	example.com/wordstat.(*Counter).Add    a method with a pointer receiver
//	example.com/wordstat.Counter.Add       a method with a value receiver
//
// A method spec matches its receiver type whether or not the receiver is a pointer
// (a type cannot declare both), so (*T).M and T.M name the same method.
type FuncSpec struct {
	PkgPath string // import path of the package
	Recv    string // receiver type name without '*', "" for a function
	Name    string // function or method name
}

func (s FuncSpec) String() string {
	if s.Recv == "" {
		return s.PkgPath + "." + s.Name
	}
	return s.PkgPath + ".(*" + s.Recv + ")." + s.Name
}

// ParseFuncSpec splits "pkgpath.Func", "pkgpath.(*T).M" or "pkgpath.T.M". The package path may itself
// contain dots ("gopkg.in/yaml.v3"), so every split point of the last path element is returned as a
// candidate; the caller keeps the one whose package exists in the module.
func ParseFuncSpec(text string) ([]FuncSpec, error) {
	slash := strings.LastIndex(text, "/")
	head, last := text[:slash+1], text[slash+1:]
	var found []FuncSpec
	for i := 0; i < len(last); i++ {
		if last[i] != '.' {
			continue
		}
		pkg, rest := head+last[:i], last[i+1:]
		if spec, ok := parseRest(pkg, rest); ok {
			found = append(found, spec)
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("cannot read function %q: expected pkgpath.Func, pkgpath.(*T).Method or pkgpath.T.Method", text)
	}
	return found, nil
}

func parseRest(pkg, rest string) (FuncSpec, bool) {
	if pkg == "" || rest == "" || strings.ContainsAny(pkg, "()*") {
		return FuncSpec{}, false
	}
	if strings.HasPrefix(rest, "(*") {
		end := strings.Index(rest, ").")
		if end < 0 {
			return FuncSpec{}, false
		}
		recv, name := rest[2:end], rest[end+2:]
		if isIdent(recv) && isIdent(name) {
			return FuncSpec{pkg, recv, name}, true
		}
		return FuncSpec{}, false
	}
	parts := strings.Split(rest, ".")
	switch {
	case len(parts) == 1 && isIdent(parts[0]):
		return FuncSpec{pkg, "", parts[0]}, true
	case len(parts) == 2 && isIdent(parts[0]) && isIdent(parts[1]):
		return FuncSpec{pkg, parts[0], parts[1]}, true
	}
	return FuncSpec{}, false
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}
