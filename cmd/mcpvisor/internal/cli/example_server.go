package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
)

func exampleServerCommand(ctx context.Context, args []string, io IO) int {
	opts, err := exampleserver.ParseFlags(args, io.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		return ExitUsage
	}
	if err := exampleserver.Run(ctx, opts, io.Stdin, io.Stdout, io.Stderr); err != nil && ctx.Err() == nil {
		fmt.Fprintf(io.Stderr, "example-server: %v\n", err)
		return ExitFailed
	}
	return ExitOK
}
