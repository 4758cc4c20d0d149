package mariadbtest

import "syscall"

// sysProcAttr makes the kernel stop mariadbd when the test binary dies without calling Main's
// cleanup (a panic, a timeout, a kill), so no server outlives its tests.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
