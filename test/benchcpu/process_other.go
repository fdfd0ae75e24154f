//go:build !unix

package benchcpu

import "time"

// Process is not measured here: the cpu-ns/op figures read 0.
func Process() time.Duration { return 0 }
