//go:build !unix

package render

import "time"

// processCPU cannot be read here: renders are bounded by wall time.
func processCPU() (time.Duration, bool) { return 0, false }
