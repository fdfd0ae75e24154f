package messages

// Progress is one notifications/progress of an upstream call, as it is
// handed to the caller's progress callback (actors.WithProgress). The
// token is not part of it: mcpvisor maps its own token to the call.
type Progress struct {
	Server string `json:"server"`
	// Progress grows with every notification; Total is zero when the
	// server does not know it.
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// ServerLogged is a notifications/message an upstream server sent, as
// published in the journal: its data rendered as JSON text and redacted.
// A server's messages are rate-limited; Dropped counts the messages of
// that server the journal left out since its previous ServerLogged.
type ServerLogged struct {
	Server  string `json:"server"`
	Session uint64 `json:"session"`
	Level   string `json:"level"`
	Logger  string `json:"logger,omitempty"`
	Data    string `json:"data"`
	Dropped int    `json:"dropped,omitempty"`
}

func (*ServerLogged) EventType() string { return "server.log" }
