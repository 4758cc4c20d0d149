package kubeapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
)

const (
	// pageLimit is the page size asked for, kubectl's default chunk size.
	pageLimit = 500
	// maxNodeBytes is what a node may take of a list on average. A kubeadm node object is 3-6
	// KiB, up to about 40 KiB with a long image list in its status (the kubelet reports 50
	// images at most).
	maxNodeBytes = 64 << 10
	// maxPageBytes bounds one answer: a page of pageLimit nodes.
	maxPageBytes = pageLimit * maxNodeBytes
	// maxErrorBytes bounds an error answer, which client-go reads whole to find its Status; a
	// real one is a few hundred bytes.
	maxErrorBytes = 64 << 10
	// maxUUID bounds the systemUUID kept of a node, as the name is bounded by the API server's
	// rule (253) and the version by collector.MaxVersionBytes. A real one is 36 bytes: without a
	// bound, 1,000 nodes whose systemUUID (and version) were just under maxToken made one
	// cluster's list 2 GB that the exporter kept until the cycle ended.
	maxUUID = 256
)

// Node is one Kubernetes node as the check reads it.
type Node struct {
	Name string
	// SystemUUID is status.nodeInfo.systemUUID, the SMBIOS system UUID the kubelet reads from
	// the machine.
	SystemUUID string
	// KubeletVersion is status.nodeInfo.kubeletVersion as the kubelet reports it ("v1.28.4").
	KubeletVersion string
}

var errPageTooLarge = fmt.Errorf("an answer of the API server is over %d bytes (an error answer over %d)", maxPageBytes, maxErrorBytes)

// listBytes bounds every byte read of one list, all its pages, after decompression and
// whitespace included: (max_nodes + 1) × maxNodeBytes, 62.6 MiB at the default max_nodes of
// 1,000. Past it the node side is output_too_large. The bytes, not only the nodes, cost the
// exporter: each is decompressed and scanned.
func listBytes(maxNodes int) int64 { return int64(maxNodes+1) * maxNodeBytes }

// errListTooLarge is the error of a list past listBytes.
type errListTooLarge struct{ limit int64 }

func (e errListTooLarge) Error() string {
	return fmt.Sprintf("the node list is over %d bytes (max_nodes + 1 nodes of %d bytes)", e.limit, maxNodeBytes)
}

// budgetReader reads from r until *left bytes are spent, shared by a list's pages.
type budgetReader struct {
	r     io.Reader
	left  *int64
	limit int64
}

func (b budgetReader) Read(p []byte) (int, error) {
	if int64(len(p)) > *b.left+1 {
		p = p[:*b.left+1]
	}
	n, err := b.r.Read(p)
	if *b.left -= int64(n); *b.left < 0 {
		return n, errListTooLarge{b.limit}
	}
	return n, err
}

// list pages through GET /api/v1/nodes with limit and continue. The metadata-only list would
// leave out systemUUID, which sits in the node's status; the typed client of k8s.io/api would
// read it, but linking it made the binary 16.5 MB larger than the metadata client (26.6 against
// 10.1 MB for a program that only builds each client, go1.27.3, -s -w) and decodes every field
// of every node (conditions, images) into memory. So the list is fetched with client-go's REST
// client and decoded as a stream (decodePage), which keeps three fields a node. Names are checked
// as the API server checks them, the other two fields bounded (maxUUID,
// collector.MaxVersionBytes), duplicates dropped; no node at all, or more than maxNodes, is an
// error.
func list(ctx context.Context, client rest.Interface, maxNodes int) ([]Node, error) {
	var out []Node
	seen := make(map[string]bool)
	limit := strconv.Itoa(min(pageLimit, maxNodes+1))
	budget := listBytes(maxNodes)
	left := budget
	cont := ""
	for pages := 0; ; pages++ {
		if pages > maxNodes {
			// Every real page has a node; a server that pages on and on is not a real one.
			return nil, withReason(reasonBadAnswer, fmt.Errorf("the node list did not end after %d pages", pages))
		}
		// No retry by client-go (it would repeat a request answered with Retry-After up to ten
		// times): a cycle asks each page once.
		req := client.Get().Resource("nodes").Param("limit", limit).MaxRetries(0)
		if cont != "" {
			req = req.Param("continue", cont)
		}
		body, err := req.Stream(ctx)
		if err != nil {
			return nil, requestFailure(ctx, err)
		}
		next, err := decodePage(budgetReader{r: body, left: &left, limit: budget}, func(n Node) error {
			if msgs := validation.IsDNS1123Subdomain(n.Name); len(msgs) > 0 {
				return withReason(reasonBadAnswer, fmt.Errorf("node name %.80q is not valid: %s", n.Name, msgs[0]))
			}
			if len(n.KubeletVersion) > collector.MaxVersionBytes {
				n.KubeletVersion = "" // unknown; the stream bounds strings at 1 MiB, a version needs 64 bytes
			}
			if len(n.SystemUUID) > maxUUID {
				return withReason(reasonBadAnswer, fmt.Errorf("node %s has a systemUUID over %d bytes", n.Name, maxUUID))
			}
			if !seen[n.Name] {
				seen[n.Name] = true
				out = append(out, n)
			}
			if len(out) > maxNodes {
				return withReason(reasonTooMany, fmt.Errorf("more than %d nodes", maxNodes))
			}
			return nil
		})
		_ = body.Close()
		if err != nil {
			return nil, pageFailure(ctx, err)
		}
		if next == "" {
			break
		}
		cont = next
	}
	if len(out) == 0 {
		// A working cluster always lists at least its control node.
		return nil, withReason(reasonBadAnswer, errors.New("the API server listed no nodes"))
	}
	return out, nil
}

// capBodies stops reading an answer past maxPageBytes, an error answer past maxErrorBytes.
func capBodies(rt http.RoundTripper) http.RoundTripper { return capTransport{rt} }

type capTransport struct{ base http.RoundTripper }

func (t capTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err == nil && resp.Body != nil {
		limit := int64(maxPageBytes)
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			limit = maxErrorBytes
		}
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: limit + 1}
	}
	return resp, err
}

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left <= 0 {
		return n, errPageTooLarge
	}
	return n, err
}
