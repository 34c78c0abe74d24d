package probe

import (
	"syscall"
	"unsafe"
)

// cpuNow is this process's CPU time in ns (clock_gettime(CLOCK_PROCESS_CPUTIME_ID)).
func cpuNow() int64 {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 2, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}
