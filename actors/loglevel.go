package actors

import (
	"context"
	"fmt"
)

// SetLogLevel asks every upstream server that supports logging to send
// its log messages at level (debug ... emergency) and above, now and on
// every later connect; "" stops asking (servers keep the level they
// were given last). Servers on protocol 2026-07-28 have no
// logging/setLevel: they get the level with each call instead (see
// WithLogLevel). It returns once every ready server answered, or ctx
// ended: a call made after it gets messages at that level.
func (s *Supervisor) SetLogLevel(ctx context.Context, level string) error {
	if level != "" && !validLogLevel(level) {
		return fmt.Errorf("log level %q: use one of debug, info, notice, warning, error, critical, alert, emergency", level)
	}
	s.env.logLevel.Store(&level)
	rows := s.view.Load().Rows()
	done := make(chan struct{}, len(rows))
	asked := 0
	for _, row := range rows {
		if row.Session != nil {
			row.Session.SetLogLevel(level, done)
			asked++
		}
	}
	for range asked {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.env.ending.done:
			return s.Err()
		}
	}
	return nil
}

func validLogLevel(level string) bool {
	switch level {
	case "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency":
		return true
	}
	return false
}
