package keeper

import (
	"bufio"
	"io"
	"strconv"
)

// Run is the keeper's loop: it reads "+PGID" and "-PGID" lines from in
// until in ends or fails (the mcpvisor that started it is gone), then
// calls kill for every group still listed. Lines it cannot read are
// skipped; so is a pgid below 2, which kill(2) would read as this
// process's own group (0) or every process the user may signal (-1, 1 is
// init's).
func Run(in io.Reader, kill func(pgid int)) {
	listed := map[int]bool{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		pgid, err := strconv.Atoi(line[1:])
		if err != nil || pgid < 2 {
			continue
		}
		switch line[0] {
		case '+':
			listed[pgid] = true
		case '-':
			delete(listed, pgid)
		}
	}
	for pgid := range listed {
		kill(pgid)
	}
}
