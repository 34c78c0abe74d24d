// Command tool is a command with a test: its tests cannot be driven from an external test package.
package main

import "fmt"

func main() { fmt.Println(greeting()) }

func greeting() string { return "hello" }
