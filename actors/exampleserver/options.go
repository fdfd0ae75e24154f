package exampleserver

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/coder/quartz"
)

// Options are the example server's behaviour switches, one per flag.
type Options struct {
	Name       string
	InitDelay  time.Duration
	InitHang   bool
	InitFail   bool
	ExitAfter  time.Duration
	ExitCode   int
	Garbage    bool
	ExtraTools int
	// Tools adds tools of these names that echo their message, as a
	// server with long tool names has them.
	Tools []string

	// Prompts adds the prompts greet (with arguments) and status.
	Prompts bool
	// Resources adds two static resources, the watched resource
	// example://counter, the template example://items/{id}, resource
	// subscriptions and the touch tool.
	Resources bool
	// UpdateEvery, with Resources, bumps example://counter and sends
	// notifications/resources/updated to its subscribers this often
	// (zero: only the touch tool does).
	UpdateEvery time.Duration
	// Completion answers completion/complete for greet's language
	// argument and example://items/{id}'s id variable.
	Completion bool
	// TwoWay adds the tools that talk back: progress and log always,
	// sample, elicit and roots for clients that advertised sampling,
	// elicitation and roots.
	TwoWay bool

	// Clock drives UpdateEvery and the progress tool's pace; nil is the
	// real clock. Tests pass a quartz mock.
	Clock quartz.Clock
}

func (o Options) clock() quartz.Clock {
	if o.Clock == nil {
		return quartz.NewReal()
	}
	return o.Clock
}

// ParseFlags reads Options from command-line arguments.
func ParseFlags(args []string, stderr io.Writer) (Options, error) {
	var o Options
	var everything bool
	fs := flag.NewFlagSet("example-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Name, "name", "example", "server name reported in the handshake")
	fs.DurationVar(&o.InitDelay, "init-delay", 0, "wait this long before answering anything")
	fs.BoolVar(&o.InitHang, "init-hang", false, "never answer the handshake")
	fs.BoolVar(&o.InitFail, "init-fail", false, "fail the handshake: print a reason to stderr and exit 1")
	fs.DurationVar(&o.ExitAfter, "exit-after", 0, "exit this long after start (status from --exit-code)")
	fs.IntVar(&o.ExitCode, "exit-code", 3, "exit status for --exit-after")
	fs.BoolVar(&o.Garbage, "garbage", false, "write non-JSON-RPC lines to stdout before serving")
	fs.IntVar(&o.ExtraTools, "extra-tools", 0, "add N more tools named tool-1 ... tool-N")
	fs.Func("tool", "add a tool of this name that echoes its message (repeatable)", func(name string) error {
		o.Tools = append(o.Tools, name)
		return nil
	})
	fs.BoolVar(&o.Prompts, "prompts", false, "add the prompts greet (with arguments) and status")
	fs.BoolVar(&o.Resources, "resources", false, "add static resources, a watched resource, a resource template, subscriptions and the touch tool")
	fs.DurationVar(&o.UpdateEvery, "update-every", 0, "with --resources, send resources/updated for example://counter this often")
	fs.BoolVar(&o.Completion, "completion", false, "answer completion/complete for prompt arguments and template variables")
	fs.BoolVar(&o.TwoWay, "two-way", false, "add the progress and log tools, and sample, elicit and roots for clients that advertise them")
	fs.BoolVar(&everything, "everything", false, "all of --prompts --resources --completion --two-way")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if everything {
		o.Prompts, o.Resources, o.Completion, o.TwoWay = true, true, true, true
	}
	var err error
	switch {
	case o.UpdateEvery < 0:
		err = fmt.Errorf("--update-every %s: must be positive", o.UpdateEvery)
	case o.UpdateEvery > 0 && !o.Resources:
		err = errors.New("--update-every needs --resources (it updates example://counter)")
	}
	if err != nil {
		fmt.Fprintf(stderr, "example-server: %v\n", err) // as the flag package does for its own errors
	}
	return o, err
}
