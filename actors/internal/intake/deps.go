package intake

import (
	"sync"
	"time"

	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
	"github.com/mcpvisor/mcpvisor/watcher"
)

// Deps are what the config and watcher actors use. Every path is
// resolved (absolute) already.
type Deps struct {
	Clock   quartz.Clock
	Logger  *zap.Logger
	Journal *journal.Journal
	// Work counts the goroutines the actors start (the config reads);
	// Supervisor.Close waits for it.
	Work *sync.WaitGroup

	// Paths are the config files in precedence order.
	Paths []string
	// ReadConfig reads them (ondisk.ReadConfigFiles; tests block it).
	ReadConfig func(paths []string) []config.FileContent
	// LookupEnv, Home, Workspace and WorkDir are how entries expand
	// (config.LoadOptions).
	LookupEnv                func(string) (string, bool)
	Home, Workspace, WorkDir string
	// NeedApproval are the project files whose entries run only as
	// approved in TrustFile (nil: every file is trusted).
	NeedApproval map[string]bool
	TrustFile    string
	// InputsFile is the store of VS Code input values ("": none).
	InputsFile string
	// LoginMarker is the token store's login marker, which `mcpvisor auth
	// login` touches ("": OAuth is off).
	LoginMarker string

	// NewNotifier, if set, replaces the watcher's fsnotify notifier
	// (tests make it fail or panic); Debounce and MaxWait are its quiet
	// window and its bound on one burst.
	NewNotifier       func() (watcher.Notifier, error)
	Debounce, MaxWait time.Duration
}
