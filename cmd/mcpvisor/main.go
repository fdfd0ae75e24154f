package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
)

func main() {
	tuneGC(os.LookupEnv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	exe, _ := os.Executable() // empty on error: run and serve go without a keeper
	code := cli.Main(ctx, os.Args[1:], cli.IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, LookupEnv: os.LookupEnv, Executable: exe})
	stop()
	os.Exit(code)
}
