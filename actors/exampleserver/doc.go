// Package exampleserver is a small, scriptable MCP server built with the
// go-sdk. It backs `mcpvisor example-server`, the bundled demo and the
// end-to-end tests, and doubles as a test double for anyone testing MCP
// supervision: flags make it slow, hang or fail its handshake, exit after a
// while or print garbage; tools echo, add, sleep, fail, report its pid and
// environment, or crash the process. Further flags add the rest of MCP's
// server features: prompts with arguments (--prompts); static resources, a
// watched resource, a resource template and subscriptions (--resources,
// --update-every); completion of a prompt argument and a template variable
// (--completion); and tools that talk back (--two-way): progress and log
// notifications, and sampling, elicitation and roots requests to the
// client, each listed only to clients that advertised the capability.
//
// New builds the server and starts nothing. Serve runs it on a transport;
// it owns the one goroutine the package starts, the --update-every ticker
// (on Options.Clock), and cancels and waits for it before returning. Run
// is Serve on stdin and stdout; --exit-after arms a timer that exits the
// process. The go-sdk starts its own connection goroutines, which end with
// the session.
package exampleserver
