//go:build !linux

package probe

import "time"

// cpuNow: no process CPU clock here; wall time (PROBE_METRIC=cpu is for Linux).
func cpuNow() int64 { return time.Now().UnixNano() }
