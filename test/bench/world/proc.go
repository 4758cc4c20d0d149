package world

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Memory returns the peak (VmHWM) and current (VmRSS) resident set size of a process in KiB,
// from /proc/PID/status; pid 0 is this process. Both are 0 where /proc is missing.
func Memory(pid int) (peakKiB, rssKiB int64) {
	p := "self"
	if pid != 0 {
		p = strconv.Itoa(pid)
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%s/status", p))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(value)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmHWM":
			peakKiB = n
		case "VmRSS":
			rssKiB = n
		}
	}
	return peakKiB, rssKiB
}
