package main

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// The hostile answers. Each is valid JSON of a NodeList's shape, written in chunks of 1 MiB
// built once, so that the fakes spend their CPU on TLS and not on building the answer.

// chunk is the unit of padding: a run of image entries, each a plausible one.
var chunk = func() []byte {
	image := `{"names":["registry.k8s.io/hostile/image@sha256:` + strings.Repeat("0", 64) + `"],"sizeBytes":1},`
	return []byte(strings.Repeat(image, (1<<20)/len(image)))
}()

// pages is how many pages paged and fat spread an answer over.
const pages = 4

// fieldSize is the length of the fat nodes' systemUUID and kubeletVersion: just under the
// decoder's bound of 1 MiB a value.
const fieldSize = 1<<20 - 64

// hostile returns, for a shape, the handler of an API server whose nodes are named names.
func hostile(shape string, size int) (func(names []string) http.HandlerFunc, error) {
	switch shape {
	case "clean":
		return func(names []string) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) { writePadded(w, names, "", 0) }
		}, nil
	case "one":
		return func(names []string) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) { writePadded(w, names, "", size) }
		}, nil
	case "paged", "fat":
		return func(names []string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				page, _ := strconv.Atoi(r.URL.Query().Get("continue"))
				next := ""
				if page+1 < pages {
					next = strconv.Itoa(page + 1)
				}
				if shape == "paged" {
					// one of the cluster's nodes per page (the last again past its end), the last
					// page the rest: every page has a node, as a real one does
					k := min(page, len(names)-1)
					these := names[k : k+1]
					if next == "" {
						these = names[k:]
					}
					writePadded(w, these, next, size/pages)
					return
				}
				writeFat(w, names, page, next, size/pages)
			}
		}, nil
	}
	return nil, fmt.Errorf("unknown shape %q", shape)
}

func header(w io.Writer, next string) int {
	n, _ := fmt.Fprintf(w, `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"4242","continue":%q},"items":[`, next)
	return n
}

// writePadded writes a page with the nodes named, the last of them carrying an image list that
// fills the page to size bytes.
func writePadded(w http.ResponseWriter, names []string, next string, size int) {
	w.Header().Set("Content-Type", "application/json")
	n := header(w, next)
	for i, name := range names {
		if i > 0 {
			n += must(io.WriteString(w, ","))
		}
		n += must(fmt.Fprintf(w, `{"metadata":{"name":%q},"status":{"nodeInfo":{"systemUUID":"%08d-0000-4000-8000-000000000000","kubeletVersion":"v1.33.1"}`, name, i))
		if i < len(names)-1 {
			n += must(io.WriteString(w, "}}"))
		}
	}
	if len(names) == 0 {
		_, _ = io.WriteString(w, "]}")
		return
	}
	n += must(io.WriteString(w, `,"images":[`))
	for n < size {
		m, err := w.Write(chunk)
		if err != nil {
			return
		}
		n += m
	}
	_, _ = io.WriteString(w, `{"names":[]}]}}]}`)
}

// writeFat writes a page of nodes whose kept fields are as long as the decoder lets them be,
// as many as fit in size bytes. Their names are the cluster's own first, then made up.
func writeFat(w http.ResponseWriter, names []string, page int, next string, size int) {
	w.Header().Set("Content-Type", "application/json")
	n := header(w, next)
	long := strings.Repeat("f", fieldSize)
	per := max(1, size/(2*fieldSize))
	for i := range per {
		name := fmt.Sprintf("fat-%d-%d", page, i)
		if k := page*per + i; k < len(names) {
			name = names[k]
		}
		if i > 0 {
			n += must(io.WriteString(w, ","))
		}
		n += must(fmt.Fprintf(w, `{"metadata":{"name":%q},"status":{"nodeInfo":{"systemUUID":"%s","kubeletVersion":"%s"}}}`, name, long, long))
		if n < 0 {
			return
		}
	}
	_, _ = io.WriteString(w, "]}")
}

// must returns the bytes written, or a large negative number once the client is gone, which
// ends the writers' loops.
func must(n int, err error) int {
	if err != nil {
		return -1 << 40
	}
	return n
}
