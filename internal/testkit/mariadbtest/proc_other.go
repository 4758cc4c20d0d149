//go:build !linux

package mariadbtest

import "syscall"

// sysProcAttr has no parent-death signal outside Linux: Main's cleanup stops the server.
func sysProcAttr() *syscall.SysProcAttr { return nil }
