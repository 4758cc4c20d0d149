// Package docgen writes the reference documents that are made from the code: the configuration
// keys (docs/configuration.md) and the metrics (docs/metrics.md).
package docgen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"time"
)

// Key is one configuration key: its dotted name, its default and what its Go field's comment
// says of it.
type Key struct {
	Name    string
	Default string
	Doc     string
}

// ConfigKeys lists every key of the configuration type root (config.Config), in the order of
// its fields, with the defaults of def (config.Defaults()) and the comments of the Go source in
// dir (the config package). A key whose field has no comment is an error: every key is
// documented.
func ConfigKeys(dir string, root reflect.Type, def reflect.Value) ([]Key, error) {
	docs, err := fieldDocs(dir)
	if err != nil {
		return nil, err
	}
	var keys []Key
	var missing []string
	var walk func(prefix string, t reflect.Type, v reflect.Value)
	walk = func(prefix string, t reflect.Type, v reflect.Value) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			key := prefix + name
			if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Time{}) {
				walk(key+".", f.Type, v.Field(i))
				continue
			}
			doc := docs[t.Name()+"."+f.Name]
			if doc == "" {
				missing = append(missing, key+" ("+t.Name()+"."+f.Name+")")
			}
			keys = append(keys, Key{Name: key, Default: format(v.Field(i)), Doc: doc})
		}
	}
	walk("", root, def)
	if len(missing) > 0 {
		return keys, fmt.Errorf("configuration keys without a comment on their Go field: %s", strings.Join(missing, ", "))
	}
	return keys, nil
}

// fieldDocs reads the comments of every struct field in the Go files of dir, keyed Type.Field.
// A comment above a group of fields (a, b int) documents each of them.
func fieldDocs(dir string) (map[string]string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	docs := make(map[string]string)
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				doc := text(field.Doc)
				if doc == "" {
					doc = text(field.Comment)
				}
				for _, n := range field.Names {
					docs[ts.Name.Name+"."+n.Name] = doc
				}
			}
			return false
		})
	}
	return docs, nil
}

// text is a comment group as one line.
func text(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}

// format writes a default as it would be written in the file.
func format(v reflect.Value) string {
	if d, ok := v.Interface().(time.Duration); ok {
		return shortDuration(d)
	}
	switch v.Kind() {
	case reflect.String:
		if v.String() == "" {
			return `""`
		}
		return v.String()
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			return "[]"
		}
	}
	return fmt.Sprint(v.Interface())
}

// shortDuration writes 5m instead of 5m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ConfigTable is the Markdown table of keys.
func ConfigTable(keys []Key) string {
	var b strings.Builder
	b.WriteString("| key | default | meaning |\n|---|---|---|\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", k.Name, strings.ReplaceAll(k.Default, "|", `\|`), strings.ReplaceAll(k.Doc, "|", `\|`))
	}
	return b.String()
}
