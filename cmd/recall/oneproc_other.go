//go:build !linux

package main

// releaseStartCPU: only Linux hooks start on one CPU (oneproc_linux.go).
func releaseStartCPU() {}
