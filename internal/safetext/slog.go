package safetext

import (
	"context"
	"fmt"
	"log/slog"
)

// Handler returns a slog.Handler that hands h every record with its text escaped (Escape): the
// message, every string value, and errors and fmt.Stringers by their text, in groups too. A log
// line names clusters, VMs and nodes and carries what control nodes and API servers answered;
// slog's text handler quotes what is not printable, but its JSON handler writes a bidirectional
// override, DEL or a C1 control raw, and a terminal or a log viewer shows them. Escaping before
// either handler makes both safe, and the original stays recoverable from the line.
func Handler(h slog.Handler) slog.Handler { return handler{h} }

type handler struct{ h slog.Handler }

func (x handler) Enabled(ctx context.Context, l slog.Level) bool { return x.h.Enabled(ctx, l) }

func (x handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Escape(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(escapeAttr(a))
		return true
	})
	return x.h.Handle(ctx, out)
}

func (x handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = escapeAttr(a)
	}
	return handler{x.h.WithAttrs(out)}
}

func (x handler) WithGroup(name string) slog.Handler { return handler{x.h.WithGroup(Escape(name))} }

// escapeAttr escapes the key and the text of one attribute.
func escapeAttr(a slog.Attr) slog.Attr {
	key := Escape(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(key, Escape(v.String()))
	case slog.KindGroup:
		group := v.Group()
		out := make([]any, len(group))
		for i, g := range group {
			out[i] = escapeAttr(g)
		}
		return slog.Group(key, out...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(key, Escape(x.Error()))
		case fmt.Stringer:
			return slog.String(key, Escape(x.String()))
		case []string:
			out := make([]string, len(x))
			for i, s := range x {
				out[i] = Escape(s)
			}
			return slog.Any(key, out)
		}
	}
	return slog.Attr{Key: key, Value: v}
}
