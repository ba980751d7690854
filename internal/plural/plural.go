// Package plural writes counts as English reads them: "1 file", "2 files",
// "0 files". Every count a report, a summary or the command line prints goes
// through it.
package plural

import "strconv"

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
