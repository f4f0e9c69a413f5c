package main

// main is empty: the package is a library, built with -buildmode=c-shared
// (see doc.go). Without cgo the package is this file and doc.go only.
func main() {}
