package cli

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// configFlags are the flags of every command that supervises servers
// in-process: which config files, where relative paths resolve, the
// watcher's debounce, and logging; `run` and `serve` share them.
type configFlags struct {
	configs    stringList
	workdir    string
	debounce   time.Duration
	logLevel   string
	logFormat  string
	inheritEnv envPolicyFlag
	workspace  string
	discover   bool
	cacheDir   string
	autostart  autostartFlag
	lazyStarts int

	// project lists the configs mcpvisor picked by itself in the project
	// (absolute): they run only as approved. Empty when the user named
	// the files, which trusts them.
	project   []string
	trustFile string
}

func (f *configFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.configs, "config", "config file (repeatable; first wins; default $MCPVISOR_CONFIG, else .mcp.json then ~/.mcp.json, the project's .mcp.json running only once approved with mcpvisor trust)")
	fs.StringVar(&f.workdir, "workdir", "", "directory relative config paths resolve against (default: current directory)")
	fs.DurationVar(&f.debounce, "debounce", 100*time.Millisecond, "quiet window after a file event before re-reading")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	fs.StringVar(&f.logFormat, "log-format", "console", "log format: console or json (logs always go to stderr)")
	fs.BoolVar(&f.discover, "discover", false, "read the MCP config files of the tools installed for this user (Claude Code, Claude Desktop, Cursor, VS Code, Windsurf, Cline, Roo, Gemini), project files first and running only once approved (see docs/config.md)")
	fs.StringVar(&f.workspace, "workspace", "", "the folder ${workspaceFolder} names in VS Code config files (default: the folder holding .vscode/, else the config file's folder)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "directory of the catalog cache: each server's last tools, prompts and resources, listed while it starts (default $XDG_CACHE_HOME/mcpvisor, else ~/.cache/mcpvisor; - turns it off)")
	fs.Var(&f.autostart, "autostart", "when servers whose entry sets no autostart start: eager (at once) or lazy (idle until a tool call, prompt get or resource read needs one, listed meanwhile; see idleTimeout in docs/config.md)")
	fs.IntVar(&f.lazyStarts, "max-lazy-starts", actors.DefaultMaxLazyStarts, "how many lazy servers start at once; the requests for the others wait their turn (0: no bound)")
	fs.Var(&f.inheritEnv, "inherit-env", "environment stdio servers inherit unless their entry says (inheritEnv): all, none (PATH, HOME, USER, LANG, TMPDIR, ... only), or that base plus a list such as NODE_*,AWS_PROFILE (default all)")
}

// autostartFlag is --autostart; unset means eager.
type autostartFlag struct{ policy messages.Autostart }

func (f *autostartFlag) String() string {
	if f == nil || f.policy == "" {
		return string(messages.AutostartEager)
	}
	return string(f.policy)
}

func (f *autostartFlag) Set(s string) error {
	a, ok := config.AutostartOf(s)
	if !ok {
		return fmt.Errorf("%q: use eager or lazy", s)
	}
	f.policy = a
	return nil
}

// envPolicyFlag is --inherit-env; unset means all.
type envPolicyFlag struct{ policy *messages.EnvPolicy }

func (f *envPolicyFlag) String() string {
	switch {
	case f == nil || f.policy == nil || f.policy.All:
		return "all"
	case len(f.policy.Allow) == 0:
		return "none"
	}
	return strings.Join(f.policy.Allow, ",")
}

func (f *envPolicyFlag) Set(s string) error {
	p, err := config.ParseEnvPolicy(s)
	if err != nil {
		return err
	}
	f.policy = p
	return nil
}

// defaults fills in the config paths when no --config was given, and
// notes which of them were found in the project rather than named.
func (f *configFlags) defaults(lookup func(string) (string, bool)) {
	if f.discover {
		found := discoverFiles(workdirOr(f.workdir), lookup)
		f.configs = append(f.configs, found.paths...)
		f.project = found.project
		f.trustFile = trustStorePath(lookup)
		return
	}
	if len(f.configs) > 0 {
		return
	}
	var named bool
	f.configs, named = defaultConfigPaths(lookup)
	if !named {
		f.project = projectPaths(f.configs, workdirOr(f.workdir), homeDir(lookup))
	}
	f.trustFile = trustStorePath(lookup)
}

// options are the Supervisor options these flags select.
func (f *configFlags) options(log *zap.Logger, lookup func(string) (string, bool)) actors.Options {
	return actors.Options{
		ConfigPaths:      f.configs,
		WorkDir:          f.workdir,
		Home:             homeDir(lookup),
		Logger:           log,
		Debounce:         f.debounce,
		LookupEnv:        lookup,
		InheritEnv:       f.inheritEnv.policy,
		ApprovalRequired: f.project,
		TrustFile:        f.trustFile,
		InputsFile:       inputStorePath(lookup),
		Workspace:        f.workspace,
		CacheDir:         f.cacheDirOr(lookup),
		Autostart:        f.autostart.policy,
		MaxLazyStarts:    lazyStartsOption(f.lazyStarts),
	}
}

// lazyStartsOption is --max-lazy-starts as Options.MaxLazyStarts: 0 (or
// less) there means no bound.
func lazyStartsOption(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// cacheDirOr is --cache-dir, else the default under the environment's
// XDG_CACHE_HOME or home.
func (f *configFlags) cacheDirOr(lookup func(string) (string, bool)) string {
	if f.cacheDir != "" {
		return f.cacheDir
	}
	if lookup == nil {
		lookup = os.LookupEnv
	}
	return actors.DefaultCacheDir(lookup, homeDir(lookup))
}

// workdirOr is dir, or the process's working directory when dir is empty.
func workdirOr(dir string) string {
	if dir != "" {
		return dir
	}
	wd, _ := os.Getwd()
	return wd
}
