package main

import "testing"

func TestGreeting(t *testing.T) {
	if greeting() != "hello" {
		t.Fatal("greeting")
	}
}
