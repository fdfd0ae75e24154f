package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// trustCommand reviews and approves project config files (the default),
// lists the approvals (--list) or withdraws some (--revoke). Approvals go
// to the trust store; a running mcpvisor watches it and applies a change
// at once.
func trustCommand(args []string, io IO) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(io.Stderr)
	yes := fs.Bool("yes", false, "approve without asking (for scripts): review the files first")
	list := fs.Bool("list", false, "list the approved files and whether they changed since")
	revoke := fs.Bool("revoke", false, "withdraw the approval of each PATH")
	workdir := fs.String("workdir", "", "the project directory: where the default files are looked for and relative PATHs resolve (default: current directory)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	lookup := func(k string) (string, bool) { return lookupEnv(io, k) }
	store := trustStorePath(lookup)
	wd, home := workdirOr(*workdir), homeDir(lookup)
	paths := config.ResolvePaths(fs.Args(), wd, home)
	switch {
	case *list && (*revoke || *yes || len(paths) > 0):
		fmt.Fprintln(io.Stderr, "mcpvisor trust: --list takes no files and no other flag")
		return ExitUsage
	case *list:
		return listApprovals(store, envFileOptions(io, wd), io)
	case *revoke && len(paths) == 0:
		fmt.Fprintln(io.Stderr, "mcpvisor trust: name the files whose approval to revoke: mcpvisor trust --revoke PATH (see mcpvisor trust --list)")
		return ExitUsage
	case *revoke:
		return revokeApprovals(store, paths, io)
	}
	if len(paths) == 0 {
		paths = discoverFiles(wd, lookup).project
		if len(paths) == 0 {
			fmt.Fprintf(io.Stderr, "mcpvisor trust: no project config file (%s) in %s; name one: mcpvisor trust PATH\n", strings.Join(discoverableProjectFiles, ", "), wd)
			return ExitFailed
		}
	}
	others := ondisk.ReadConfigFiles(userConfigPaths(wd, lookup, paths))
	return approveFiles(store, paths, *yes, config.PreviewOptions{Others: others, ProjectDir: wd}, envFileOptions(io, wd), io)
}

// approveFiles shows each file's servers and records the approval of what
// was shown, once confirmed, with what each entry's envFile holds (read
// through opts).
func approveFiles(store string, paths []string, yes bool, preview config.PreviewOptions, opts config.LoadOptions, io IO) int {
	approvals, err := ondisk.ReadApprovals(store)
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor trust: %v\n", err)
		return ExitFailed
	}
	files := ondisk.ReadConfigFiles(paths)
	policy := &config.TrustPolicy{NeedApproval: map[string]bool{}, Approvals: approvals}
	for _, p := range paths {
		policy.NeedApproval[p] = true
	}
	answers := bufio.NewReader(io.Stdin)
	code := ExitOK
	for i, d := range config.DecideTrust(files, policy) {
		policy.JudgeEnvFiles(&d, files[i].Data, opts)
		switch {
		case d.Missing:
			fmt.Fprintf(io.Stderr, "mcpvisor trust: %s: no such file\n", d.Path)
			code = ExitFailed
			continue
		case files[i].ReadErr != nil:
			fmt.Fprintf(io.Stderr, "mcpvisor trust: %s: %v\n", d.Path, files[i].ReadErr)
			code = ExitFailed
			continue
		case !d.Parsed:
			fmt.Fprintf(io.Stderr, "mcpvisor trust: %s is not a usable config file; see mcpvisor check %s\n", d.Path, d.Path)
			code = ExitFailed
			continue
		case d.Approved:
			fmt.Fprintf(io.Stdout, "%s: already approved as it is\n", d.Path)
			continue
		}
		previews, _ := config.PreviewEntries(d.Path, files[i].Data, preview)
		printTrustPreview(io.Stdout, d, approvals.Files[d.Path], previews)
		printExposedSecrets(io.Stdout, d.Path, files[i].Data)
		if ok, why := confirmApproval(io, answers, d.Path, yes); !ok {
			fmt.Fprintf(io.Stderr, "mcpvisor trust: %s not approved: %s\n", d.Path, why)
			code = ExitFailed
			continue
		}
		d.EnvFiles = config.EnvFilesRead(d.Path, files[i].Data, opts)
		err := ondisk.UpdateApprovals(store, func(a config.Approvals) (config.Approvals, error) {
			return a.Approve(d, time.Now()), nil
		})
		if err != nil {
			fmt.Fprintf(io.Stderr, "mcpvisor trust: %v\n", err)
			return ExitFailed
		}
		fmt.Fprintf(io.Stdout, "approved %s (%s); a running mcpvisor applies it at once\n", d.Path, plural(len(d.Entries), "server"))
	}
	return code
}

// confirmApproval asks y/N on a terminal; --yes answers for scripts. With
// no terminal to ask, the answer is no.
func confirmApproval(io IO, answers *bufio.Reader, path string, yes bool) (bool, string) {
	if yes {
		return true, ""
	}
	if !isTerminal(io.Stdin) {
		return false, "stdin is not a terminal to ask on; review the servers above and run mcpvisor trust --yes " + quoteArg(path)
	}
	fmt.Fprintf(io.Stdout, "These servers run as you, with your environment. Approve %s? [y/N] ", path)
	line, err := answers.ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, ""
	}
	if err != nil && line == "" {
		fmt.Fprintln(io.Stdout)
	}
	return false, "not confirmed"
}

// isTerminal reports whether r is a terminal (a character device).
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok || f == nil {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// listApprovals lists the approvals and whether each file, and what its
// entries' envFiles hold (read through opts), is still as approved.
func listApprovals(store string, opts config.LoadOptions, io IO) int {
	approvals, err := ondisk.ReadApprovals(store)
	if err != nil {
		fmt.Fprintf(io.Stderr, "mcpvisor trust: %v\n", err)
		return ExitFailed
	}
	if len(approvals.Files) == 0 {
		fmt.Fprintf(io.Stdout, "no approved files (%s)\n", store)
		return ExitOK
	}
	rows := [][]string{{"PATH", "APPROVED", "SERVERS", "NOW"}}
	for _, path := range sortedKeys(approvals.Files) {
		a := approvals.Files[path]
		rows = append(rows, []string{quoteArg(path), a.ApprovedAt.UTC().Format("2006-01-02 15:04 UTC"), fmt.Sprint(len(a.Entries)), currentState(path, a, opts)})
	}
	writeTable(io.Stdout, "", rows)
	return ExitOK
}

// currentState says whether an approved file is still as approved.
func currentState(path string, a config.FileApproval, opts config.LoadOptions) string {
	f := ondisk.ReadConfigFiles([]string{path})[0]
	switch {
	case f.Missing:
		return "missing"
	case f.ReadErr != nil:
		return "unreadable"
	case config.ContentHash(f.Data) != a.SHA256:
		return "changed: new or changed servers wait for mcpvisor trust " + quoteArg(path)
	}
	if changes := envFileChanges(f, a, opts); changes != "" {
		return changes + ": waits for mcpvisor trust " + quoteArg(path)
	}
	return "unchanged"
}

func revokeApprovals(store string, paths []string, io IO) int {
	code := ExitOK
	for _, p := range paths {
		var had bool
		err := ondisk.UpdateApprovals(store, func(a config.Approvals) (config.Approvals, error) {
			var out config.Approvals
			out, had = a.Revoke(p)
			return out, nil
		})
		switch {
		case err != nil:
			fmt.Fprintf(io.Stderr, "mcpvisor trust: %v\n", err)
			return ExitFailed
		case !had:
			fmt.Fprintf(io.Stderr, "mcpvisor trust: %s is not approved (see mcpvisor trust --list)\n", p)
			code = ExitFailed
		default:
			fmt.Fprintf(io.Stdout, "revoked %s; a running mcpvisor stops its servers at once\n", p)
		}
	}
	return code
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
