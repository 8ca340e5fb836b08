// Package logging writes structured JSON log lines in the shape Cloud
// Logging reads from a function's stdout or stderr: "severity" and "message"
// are recognised as such, and every other field lands in jsonPayload, where
// log-based metrics and filters can use it. A request's lines name its
// trace (trace.go), so that Cloud Logging shows them under the request.
package logging

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// New returns a logger that writes one JSON object per line to w; a line
// logged with a request's context names the request's trace (Traced).
func New(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(traceHandler{slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level:       level,
		ReplaceAttr: cloudLoggingNames,
	})})
}

func cloudLoggingNames(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.MessageKey:
		a.Key = "message"
	case slog.LevelKey:
		a.Key = "severity"
		a.Value = slog.StringValue(severity(a.Value.Any().(slog.Level)))
	case slog.TimeKey:
		a.Key = "time"
	}
	return a
}

// severity maps slog levels onto Cloud Logging's severity names.
func severity(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "ERROR"
	case l >= slog.LevelWarn:
		return "WARNING"
	case l >= slog.LevelInfo:
		return "INFO"
	default:
		return "DEBUG"
	}
}

// ParseLevel reads "debug", "info", "warning" (or "warn") and "error".
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info", "":
		return slog.LevelInfo, nil
	case "warning", "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown log level %q (use debug, info, warning or error)", s)
}
