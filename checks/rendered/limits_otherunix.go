//go:build unix && !linux

package rendered

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}
