package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// sample is a set of measured durations.
type sample []time.Duration

func (s sample) sorted() sample {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func (s sample) min() time.Duration { return s.q(0) }
func (s sample) max() time.Duration { return s.q(1) }

// median is the middle value (the mean of the two middle ones for an even
// count).
func (s sample) median() time.Duration {
	c := s.sorted()
	n := len(c)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return c[n/2]
	default:
		return (c[n/2-1] + c[n/2]) / 2
	}
}

// q is the nearest-rank quantile p in [0, 1]: p99 of 20 values is the
// largest one; it is never interpolated.
func (s sample) q(p float64) time.Duration {
	c := s.sorted()
	if len(c) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(c)))) - 1
	return c[max(0, min(i, len(c)-1))]
}

func (s sample) p99() time.Duration { return s.q(0.99) }

// minus subtracts d from every value.
func (s sample) minus(d time.Duration) sample {
	out := make(sample, len(s))
	for i, v := range s {
		out[i] = v - d
	}
	return out
}

// ms formats d in milliseconds with a precision that suits its size.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// mmp is "min / median / p99" in ms.
func (s sample) mmp() string {
	if len(s) == 0 {
		return "–"
	}
	return fmt.Sprintf("%s / %s / %s", ms(s.min()), ms(s.median()), ms(s.p99()))
}

// mmm is "min / median / max" in ms.
func (s sample) mmm() string {
	if len(s) == 0 {
		return "–"
	}
	return fmt.Sprintf("%s / %s / %s", ms(s.min()), ms(s.median()), ms(s.max()))
}

// table is a Markdown table printed as the harness's report.
type table struct {
	head []string
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) String() string {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	line(t.head)
	sep := make([]string, len(t.head))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
	return b.String()
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
func kib(b int64) string { return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10)) }

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}
