package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// writeTable prints rows as aligned columns two spaces apart, each line
// prefixed by indent and without trailing blanks (tabwriter pads a cell
// even when the last one is empty).
func writeTable(w io.Writer, indent string, rows [][]string) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	_ = tw.Flush()
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if line != "" {
			fmt.Fprintln(w, indent+strings.TrimRight(line, " "))
		}
	}
}
