// Command auth is the conformance suite's client driver for its auth/*
// scenarios, with mcpvisor as the client: the suite starts it as `auth
// URL` with MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT (client
// credentials, a private key) set. It writes a one-server config whose
// oauth object the context decides, runs an actors.Supervisor over it
// with a token store of its own, and when the server waits in needs-auth
// runs the interactive login exactly as `mcpvisor auth login` does, with
// $BROWSER (run.sh sets browser.sh, which follows the authorization
// server's redirect to the loopback listener), then resyncs and calls the
// scenario's tool. A tool call that ends in needs-auth (a scope step-up)
// logs in once more, and only once.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

const server = "conformance"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpclient auth:", err)
		os.Exit(1)
	}
}

// oauthObject is the server's oauth config as the scenario's context
// calls for.
func oauthObject(dir string, ctxJSON string) (map[string]any, error) {
	var c map[string]any
	if ctxJSON != "" {
		if err := json.Unmarshal([]byte(ctxJSON), &c); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	id, _ := c["client_id"].(string)
	secret, _ := c["client_secret"].(string)
	if pem, ok := c["private_key_pem"].(string); ok {
		key := filepath.Join(dir, "key.pem")
		if err := os.WriteFile(key, []byte(pem), 0o600); err != nil {
			return nil, err
		}
		return map[string]any{"grant": "client_credentials", "clientId": id, "privateKeyFile": key}, nil
	}
	if strings.HasPrefix(os.Getenv("MCP_CONFORMANCE_SCENARIO"), "auth/client-credentials") {
		return map[string]any{"grant": "client_credentials", "clientId": id, "clientSecret": secret}, nil
	}
	o := map[string]any{"clientMetadataUrl": "https://conformance-test.local/client-metadata.json"}
	if id != "" {
		o["clientId"] = id
		if secret != "" {
			o["clientSecret"] = secret
		}
	}
	return o, nil
}

func run() error {
	if len(os.Args) < 2 {
		return errors.New("usage: MCP_CONFORMANCE_SCENARIO=S auth URL")
	}
	url := os.Args[len(os.Args)-1]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "mcpclient-auth-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	o, err := oauthObject(dir, os.Getenv("MCP_CONFORMANCE_CONTEXT"))
	if err != nil {
		return err
	}
	cfg := filepath.Join(dir, "mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{server: map[string]any{"type": "http", "url": url, "oauth": o}}})
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		return err
	}
	log, err := zap.NewDevelopment()
	if err != nil {
		return err
	}
	store := oauth.Store{Dir: filepath.Join(dir, "oauth")}
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{cfg}, WorkDir: dir, DisableWatch: true, Logger: log, OAuthDir: store.Dir})
	if err != nil {
		return err
	}
	defer func() { _ = sup.Close() }()

	logins := 0
	for {
		st, err := settle(ctx, sup, messages.StateReady, messages.StateNeedsAuth)
		if err != nil {
			return err
		}
		if st.State == messages.StateReady {
			err = callTool(ctx, sup)
			if err == nil {
				return nil
			}
			if !strings.Contains(err.Error(), "mcpvisor auth login") {
				return err
			}
			// The session parks the server in needs-auth after the call.
			if st, err = settle(ctx, sup, messages.StateNeedsAuth); err != nil {
				return err
			}
		}
		// needs-auth: log in, at most twice (the first time, and once for
		// a step-up).
		if logins++; logins > 2 {
			return fmt.Errorf("still needs authorization after %d logins: %s", logins-1, st.LastError)
		}
		if err := login(ctx, cfg, store); err != nil {
			return err
		}
		if _, _, err := sup.Resync(ctx, false); err != nil {
			return fmt.Errorf("resync: %w", err)
		}
	}
}

// settle waits until the server is in one of states.
func settle(ctx context.Context, sup *actors.Supervisor, states ...messages.State) (messages.ServerStatus, error) {
	sub := sup.Follow(journal.Live, 1024)
	defer sub.Close()
	for {
		for _, s := range sup.Status().Servers {
			switch {
			case slices.Contains(states, s.State):
				return s, nil
			case s.State == messages.StateFailed || s.State == messages.StateInvalid:
				return s, fmt.Errorf("server %s: %s", s.State, s.LastError)
			}
		}
		select {
		case <-sub.C:
		case <-ctx.Done():
			return messages.ServerStatus{}, fmt.Errorf("server not settled: %w", ctx.Err())
		}
	}
}

// callTool calls the scenario server's first tool, as the suite's own
// clients do ("test-tool").
func callTool(ctx context.Context, sup *actors.Supervisor) error {
	tools := sup.Tools()
	if len(tools) == 0 {
		return nil
	}
	res, err := sup.CallTool(ctx, actors.QualifiedName(tools[0].Prefix, tools[0].Name), map[string]any{})
	if err != nil {
		return fmt.Errorf("call %s: %w", tools[0].Name, err)
	}
	if res.IsError {
		return fmt.Errorf("call %s: the server answered with an error", tools[0].Name)
	}
	return nil
}

// login is `mcpvisor auth login conformance`: the config's entry, the
// browser from $BROWSER.
func login(ctx context.Context, cfg string, store oauth.Store) error {
	loaded, _ := config.Load(ondisk.ReadConfigFiles([]string{cfg}), config.LoadOptions{LookupEnv: os.LookupEnv}, nil)
	if len(loaded.Servers) != 1 {
		return fmt.Errorf("config: %v", loaded.Diagnostics)
	}
	_, err := oauth.Login(ctx, oauth.LoginOptions{Spec: loaded.Servers[0], Store: store, Open: func(u string) error {
		b := os.Getenv("BROWSER")
		if b == "" {
			return errors.New("BROWSER is not set")
		}
		cmd := exec.CommandContext(ctx, b, u)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		return cmd.Run()
	}})
	return err
}
