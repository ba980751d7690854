// Package plural writes counts as English reads them: "1 file", "2 files",
// "0 files", "5.0 MiB". Every count a report, a summary or the command line
// prints goes through it.
package plural

import (
	"fmt"
	"strconv"
)

// Count is n followed by one when n is 1, else by many: Count(1, "finding",
// "findings") is "1 finding", Count(0, "finding", "findings") "0 findings".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Form is one when n is 1, else many: the word that agrees with a count ("the
// 1 file read holds", "the 2 files read hold").
func Form(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Bytes is a size as people read it: "812 bytes", "4.0 KiB", "10.0 MiB".
func Bytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return Count(int(n), "byte", "bytes")
}
