package keeper

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// Command is the hidden mcpvisor command that runs the keeper.
const Command = "internal-keeper"

// Keeper is mcpvisor's end of its keeper: the pipe it lists groups on.
type Keeper struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	w   *os.File // nil once closed
	err error    // the first failed write: the keeper is gone
}

// Start runs exe (the mcpvisor binary) as the keeper.
func Start(exe string) (*Keeper, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start the keeper: %w", err)
	}
	cmd := exec.Command(exe, Command)
	cmd.Stdin = r // the standard streams it does not get are /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	_ = r.Close() // the keeper's now; ours would keep its input open
	if err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("start the keeper %s: %w", exe, err)
	}
	return &Keeper{cmd: cmd, w: w}, nil
}

// Track lists the process group pgid; the func it returns unlists it. It
// is actors.Options.ProcessGroups.
func (k *Keeper) Track(pgid int) (gone func()) {
	k.send('+', pgid)
	return func() { k.send('-', pgid) }
}

func (k *Keeper) send(op byte, pgid int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.w == nil || k.err != nil {
		return
	}
	if _, err := fmt.Fprintf(k.w, "%c%d\n", op, pgid); err != nil {
		k.err = err
	}
}

// Close ends the keeper and waits for it: it kills the groups still
// listed (none once every server has stopped) and exits. It returns an
// error if a group could not be listed (the keeper had died) or the
// keeper failed.
func (k *Keeper) Close() error {
	k.mu.Lock()
	w, err := k.w, k.err
	k.w = nil
	k.mu.Unlock()
	if w == nil {
		return nil
	}
	_ = w.Close()
	if werr := k.cmd.Wait(); werr != nil {
		err = errors.Join(err, werr)
	}
	if err != nil {
		return fmt.Errorf("keeper: %w", err)
	}
	return nil
}
