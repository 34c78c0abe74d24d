package main

import (
	"reflect"
	"testing"
)

func TestParseFuncSpec(t *testing.T) {
	cases := map[string][]FuncSpec{
		"example.com/wordstat.Tokenize": {{"example.com/wordstat", "", "Tokenize"}},
		"example.com/wordstat.(*T).Add": {{"example.com/wordstat", "T", "Add"}},
		"example.com/wordstat.T.Add":    {{"example.com/wordstat", "T", "Add"}, {"example.com/wordstat.T", "", "Add"}},
		"gopkg.in/yaml.v3.Marshal":      {{"gopkg.in/yaml", "v3", "Marshal"}, {"gopkg.in/yaml.v3", "", "Marshal"}},
		"main.Run":                      {{"main", "", "Run"}},
	}
	for text, want := range cases {
		got, err := ParseFuncSpec(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", text, got, want)
		}
	}
	for _, bad := range []string{"Tokenize", "example.com/wordstat", "a/b.(*T.M", "a/b.1x", "a/b."} {
		if _, err := ParseFuncSpec(bad); err == nil {
			t.Errorf("%q: expected an error", bad)
		}
	}
}

func TestSpecString(t *testing.T) {
	if s := (FuncSpec{"a/b", "T", "M"}).String(); s != "a/b.(*T).M" {
		t.Fatal(s)
	}
	if s := (FuncSpec{"a/b", "", "F"}).String(); s != "a/b.F" {
		t.Fatal(s)
	}
}
