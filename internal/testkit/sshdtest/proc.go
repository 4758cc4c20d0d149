package sshdtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// awaitExit waits on a pidfd (Linux 5.3 and later), which becomes readable when the process
// exits; a pid that is already gone has nothing to wait for.
func awaitExit(pid int, timeout time.Duration) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("process %d still runs after %s", pid, timeout)
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("poll pidfd %d: %w", pid, err)
		}
		if n > 0 {
			return nil
		}
	}
}

// Processes returns the pids of the processes that run as uid, read from /proc. Zombies are
// left out: they have exited and run nothing, only their parent (often init) has not reaped them.
func Processes(uid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStatus(pid); ok && st.uid == uid && !st.zombie {
			out = append(out, pid)
		}
	}
	return out
}

// status is what Processes needs of /proc/<pid>/status.
type status struct {
	uid    int
	zombie bool
}

func readStatus(pid int) (status, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return status{}, false // gone meanwhile
	}
	st := status{uid: -1}
	for line := range strings.Lines(string(data)) {
		key, value, _ := strings.Cut(line, ":")
		f := strings.Fields(value)
		if len(f) == 0 {
			continue
		}
		switch key {
		case "Uid":
			st.uid, _ = strconv.Atoi(f[0])
		case "State":
			st.zombie = f[0] == "Z"
		}
	}
	return st, true
}

// AwaitNoProcesses waits until no process runs as uid, at most timeout, and returns those left
// with their command lines, or "" when none is.
func AwaitNoProcesses(uid int, timeout time.Duration) string {
	return describe(awaitNone(uid, timeout))
}

// awaitNone waits until no process runs as uid, at most timeout, and returns those left.
func awaitNone(uid int, timeout time.Duration) []int {
	deadline := time.Now().Add(timeout)
	for {
		left := Processes(uid)
		if len(left) == 0 || time.Until(deadline) <= 0 {
			return left
		}
		for _, pid := range left {
			_ = awaitExit(pid, max(time.Until(deadline), time.Millisecond))
		}
	}
}

// describe names processes by pid and command line, for a test's error.
func describe(pids []int) string {
	var b strings.Builder
	for _, pid := range pids {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		fmt.Fprintf(&b, "[%d %s] ", pid, strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "))
	}
	return strings.TrimSpace(b.String())
}
