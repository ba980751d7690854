// Package procstat reads a process's memory sizes from Linux's
// /proc/PID/status, for the benchmarks and the load test that measure a
// process's resident set (peak RSS, its anonymous and file-backed parts).
package procstat

import (
	"os"
	"strconv"
	"strings"
)

// Status returns the sizes /proc/PID/status gives in kB (VmHWM, VmRSS,
// RssAnon, RssFile...), in bytes, by their names; pid is a process ID or
// "self". It is empty where /proc cannot be read (not Linux).
func Status(pid string) map[string]uint64 {
	out := map[string]uint64{}
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || !strings.HasSuffix(v, " kB") {
			continue
		}
		if kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(v, " kB")), 10, 64); err == nil {
			out[k] = kb << 10
		}
	}
	return out
}
