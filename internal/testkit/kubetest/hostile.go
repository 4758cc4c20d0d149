package kubetest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Hostile inputs for the Kubernetes API source that are not a server of their own: a kubeconfig
// and answers for Server.SetAnswer. Each is valid for what reads it, and costly to a reader
// that does not bound it.

// AliasBomb returns kubeconfig with a key no kubeconfig has whose value is a YAML alias bomb of
// 7.6 KB: 2,000 plain values (which keep a decoder's alias ratio low), a string of 3,000 bytes,
// three levels of ten aliases each and a list of 90 aliases to the last level, which is 270
// million bytes of strings once every alias is expanded. The kubeconfig is otherwise usable.
func AliasBomb(kubeconfig []byte) []byte {
	var b strings.Builder
	b.Write(kubeconfig)
	b.WriteString("x-bomb:\n  pad: [")
	for i := range 2000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("0")
	}
	b.WriteString("]\n  a: &a \"" + strings.Repeat("x", 3000) + "\"\n")
	level := func(name, of string, n int) {
		b.WriteString("  " + name + ": &" + name + " [")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("*" + of)
		}
		b.WriteString("]\n")
	}
	level("b", "a", 10)
	level("c", "b", 10)
	level("d", "c", 10)
	level("e", "d", 90)
	return []byte(b.String())
}

// SpacedList answers a node list of nodes with spaces bytes of whitespace before its first
// item, which JSON allows, compressed with gzip when compress is set (32 MiB of spaces take
// about 32 KiB on the wire; compressed once, on the first request).
func SpacedList(nodes []Node, spaces int, compress bool) http.HandlerFunc {
	head, tail := listParts(nodes)
	write := func(out io.Writer) error {
		if _, err := io.WriteString(out, head); err != nil {
			return err
		}
		blank := []byte(strings.Repeat(" ", 64<<10))
		for n := 0; n < spaces; n += len(blank) {
			if _, err := out.Write(blank[:min(len(blank), spaces-n)]); err != nil {
				return err
			}
		}
		_, err := io.WriteString(out, tail)
		return err
	}
	compressed := sync.OnceValue(func() []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_ = write(zw)
		_ = zw.Close()
		return b.Bytes()
	})
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !compress {
			_ = write(w)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(compressed())
	}
}

// HugeHeaders answers a node list of nodes after size bytes of headers, lines of 100 bytes
// each (net/http's client takes up to 10 MB of them by default).
func HugeHeaders(nodes []Node, size int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		line := strings.Repeat("h", 100-len("X-Padding: \r\n"))
		pad := make([]string, size/100)
		for i := range pad {
			pad[i] = line
		}
		w.Header()["X-Padding"] = pad
		w.Header().Set("Content-Type", "application/json")
		head, tail := listParts(nodes)
		_, _ = io.WriteString(w, head+tail)
	}
}

// listParts is the JSON of a NodeList of nodes cut after its items' opening bracket.
func listParts(nodes []Node) (string, string) {
	list := corev1.NodeList{TypeMeta: metav1.TypeMeta{Kind: "NodeList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{ResourceVersion: resourceVersion}, Items: []corev1.Node{}}
	for i, n := range nodes {
		list.Items = append(list.Items, node(n, i))
	}
	b, _ := json.Marshal(list)
	s := string(b)
	i := strings.Index(s, `"items":[`) + len(`"items":[`)
	return s[:i], s[i:]
}
