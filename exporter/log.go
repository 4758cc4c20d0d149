package exporter

import "log/slog"

// slogErrorLogger lets promhttp report errors through the exporter's logger.
type slogErrorLogger struct{ logger *slog.Logger }

func (l slogErrorLogger) Println(v ...any) {
	l.logger.Error("Error serving metrics", "err", v)
}
