package messages

import "time"

// ServerStatus is one server's row in a status snapshot.
type ServerStatus struct {
	Name string `json:"name"`
	// Prefix is what the server's tools are exposed under (see
	// ServerSpec.Prefix); empty for an entry that does not run.
	Prefix    string    `json:"prefix"`
	Transport Transport `json:"transport"`
	State     State     `json:"state"`
	PID       int       `json:"pid"`
	Session   uint64    `json:"session"`
	Tools     int       `json:"tools"`
	// Prompts, Resources and Templates count the exposed catalog while
	// ready or Cached (zero otherwise), like Tools.
	Prompts   int `json:"prompts"`
	Resources int `json:"resources"`
	Templates int `json:"resourceTemplates"`
	// Cached says the server is not ready yet and its catalog, counted
	// above, is the one it had last time, from the catalog cache: listed,
	// not callable until it is ready.
	Cached     bool      `json:"cached,omitempty"`
	Attempt    int       `json:"attempt"`
	Restarts   int       `json:"restarts"`
	LastError  string    `json:"lastError"`
	Warning    string    `json:"warning"`
	NextRetry  time.Time `json:"nextRetryAt,omitzero"`
	Since      time.Time `json:"since,omitzero"`
	Source     Position  `json:"source"`
	StderrTail []string  `json:"stderrTail"`
}

// Status is a point-in-time copy of the whole fleet.
type Status struct {
	// Generation is the newest desired state the fleet actor has seen;
	// ObservedGeneration the newest one whose plan was fully applied.
	Generation         uint64         `json:"generation"`
	ObservedGeneration uint64         `json:"observedGeneration"`
	Servers            []ServerStatus `json:"servers"`
	ConfigErrors       []Diagnostic   `json:"configErrors"`
	// ConfigFiles are the config files read, resolved, in precedence
	// order: the first that declares a name wins, and of two servers
	// that claim one resource, the one declared first owns it.
	ConfigFiles []string `json:"configFiles,omitempty"`
	// Failed is set once the Supervisor has failed (Supervisor.Err): the
	// rows are the last ones seen, and nothing is supervised any more.
	Failed string `json:"failed,omitempty"`
}
