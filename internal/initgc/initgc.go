// Package initgc keeps the garbage collector off while the binary's
// package initializers run, and gives it back its percentage when main
// starts.
//
// The one binary runs about 420 package initializers before main (Helm's
// JSON Schema library compiling its meta-schemas, client-go's scheme, the
// OpenAPI models…); they allocate about 6.7 MB, of which 1 to 3 MB is
// still live when main starts. From the runtime's 4 MB minimum heap goal
// that is two or three collections during start-up, each marking a heap
// that is nearly all still in use, on every run, a one-file check
// included. Imported for its initializer by cmd/prodready, whose main
// calls Restore first thing; Go initializes the packages whose import
// paths sort before this one's and are ready first, so what they allocate
// is collected as before.
package initgc

import "runtime/debug"

// percent is the collector's percentage as the process started: GOGC's,
// 100 by default, -1 for GOGC=off.
var percent = debug.SetGCPercent(-1)

// restored says Restore has run.
var restored bool

// Restore gives the collector back the percentage the process started
// with; only the first call does anything. Call it before anything else
// in main, and in a test binary's TestMain.
func Restore() {
	if restored {
		return
	}
	restored = true
	debug.SetGCPercent(percent)
}
