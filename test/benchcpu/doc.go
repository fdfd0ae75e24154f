// Package benchcpu measures a benchmark's CPU time: the process's user
// and system time, every thread's, the garbage collector's included. On a
// machine shared with other work, a benchmark's wall time per op grows
// with the load while its CPU time does not, so variants are compared by
// the latter. Package actorstest exports PerOp as CPUPerOp; the internal
// benchmarks of packages that actorstest imports use it from here.
//
// Goroutines: none.
package benchcpu
