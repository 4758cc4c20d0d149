// Package procstat reads what the benchmarks measure of a process from /proc: its CPU time and
// the bytes it read and wrote.
package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// CPUSeconds is the user + system CPU time of a process, from /proc/PID/stat; 0 when it cannot
// be read.
func CPUSeconds(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(raw)
	// Fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ is 100 on Linux
}

// IOBytes are the bytes a process read and wrote through system calls (sockets included), from
// /proc/PID/io; zero when it cannot be read.
func IOBytes(pid int) (read, written int64) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		k, v, _ := strings.Cut(l, ":")
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "rchar":
			read = n
		case "wchar":
			written = n
		}
	}
	return read, written
}
