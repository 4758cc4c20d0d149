package exporter

import (
	"context"
	"fmt"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter/report"
	"io"
	"log/slog"
	"sort"
	"sync"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/database"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
)

// Preflight checks, read-only, what the exporter needs before it is started for real: the
// configuration, the API key, whether its role allows every API the exporter calls, the database
// account's grants (inventory.source database), one page of clusters, and one login to a control node (or Kubernetes API) per zone. It prints a checklist
// with what to change for each failure and returns 0 when every check passed, 1 otherwise. It
// writes nothing to CloudStack, to the clusters or to the state file: a control node's host key
// is trusted for the run only (ssh.RunPins), so that it runs beside a running exporter. listen
// are the exporter's --web.listen-address values, with which the webhook's payload URL is
// compared (preflight_webhook.go).
func Preflight(ctx context.Context, configFile string, listen []string, w io.Writer, logger *slog.Logger) int {
	p := &preflight{w: w}
	cfg, err := config.Load(configFile)
	if !p.check("configuration "+configFile, "valid", err) {
		return p.done()
	}
	src, err := newSources(cfg, &ssh.RunPins{}, ssh.NewMetrics(), nil, logger)
	if !p.check("back ends (keys, CA and known_hosts files)", "built", err) {
		return p.done()
	}
	if src.close != nil {
		defer func() { _ = src.close() }()
	}
	names, needed := preflightAPIs(cfg)
	if !p.apis(ctx, src.api, cfg.CloudStack.Endpoint, names, needed) {
		return p.done() // without the endpoint and the keys nothing below can pass
	}
	if cfg.Inventory.Source == config.SourceAPI {
		p.firstPage(ctx, src.api, cfg.CloudStack.PageSize)
	}
	if cfg.Events.Webhook.Enabled {
		p.webhook(src.api.SDK(ctx), cfg, listen)
	}
	if db, ok := src.inventory.(*database.Source); ok {
		p.databaseGrants(ctx, db)
	}
	inv, err := src.inventory.Inventory(ctx)
	if !p.check("inventory", inventoryCounts(inv), cloudstackapi.Hint(err)) {
		return p.done()
	}
	p.logins(ctx, cfg, inv, src.nodes)
	return p.done()
}

type preflight struct {
	w             io.Writer
	passed, total int
	// cloudStackVersion is CloudStack's release, once read (release).
	cloudStackVersion string
}

// check prints one line of the checklist and reports whether it passed.
func (p *preflight) check(what, ok string, err error) bool {
	p.total++
	if err != nil {
		fmt.Fprintf(p.w, "FAIL  %s: %s\n", what, safetext.Escape(err.Error()))
		return false
	}
	p.passed++
	fmt.Fprintf(p.w, "ok    %s: %s\n", what, safetext.Escape(ok))
	return true
}

func (p *preflight) done() int {
	if p.passed == p.total {
		fmt.Fprintf(p.w, "\nAll %d checks passed.\n", p.total)
		return 0
	}
	fmt.Fprintf(p.w, "\n%d of %d checks failed.\n", p.total-p.passed, p.total)
	return 1
}

// apis asks listApis about each API (apiCommands): CloudStack lists only the APIs the caller's
// role allows, and answers an error for the others. The first call also proves the endpoint and
// the keys. It reports whether the first needed of names are allowed.
func (p *preflight) apis(ctx context.Context, api *cloudstackapi.Client, endpoint string, names []string, needed int) bool {
	sdk := api.SDK(ctx)
	readsOK := true
	for i, name := range names {
		err := listAPI(sdk, name)
		if since := commandSince(name); err != nil && since != "" {
			if release, rerr := p.release(sdk); rerr == nil && olderThan(release, since) {
				fmt.Fprintf(p.w, "--    the key's role allows %s: CloudStack %s has no %s (from %s)\n", name, safetext.Line(release, 32), name, since)
				continue
			}
		}
		if err != nil {
			if i == 0 && cloudstackapi.Code(err) != 431 {
				// Not a "no such API" answer: the endpoint, the TLS or the keys are wrong.
				p.check("CloudStack API at "+endpoint, "", cloudstackapi.Hint(err))
				return false
			}
			err = &cloudstackapi.HintError{Err: err, Hint: fmt.Sprintf("allow %s in the role of the key's account", name)}
		}
		if i == 0 && err == nil {
			p.check("CloudStack API at "+endpoint, "the keys are accepted", nil)
		}
		if !p.check("the key's role allows "+name, "yes", err) && i < needed {
			readsOK = false
		}
	}
	return readsOK
}

// listAPI asks listApis about one API, read-only and signed, and returns the redacted error: nil
// when the key's role allows name, CloudStack's 431 when it does not.
func listAPI(sdk *cs.CloudStackClient, name string) error {
	params := sdk.APIDiscovery.NewListApisParams()
	params.SetName(name)
	var err error
	if gerr := cloudstackapi.Guard(func() error { _, err = sdk.APIDiscovery.ListApis(params); return err }); gerr != nil {
		err = gerr
	}
	return cloudstackapi.Redact(err)
}

// firstPage reads one page of clusters, as the first step of every cycle does.
func (p *preflight) firstPage(ctx context.Context, api *cloudstackapi.Client, size int) {
	sdk := api.SDK(ctx)
	params := sdk.Kubernetes.NewListKubernetesClustersParams()
	params.SetListall(true)
	params.SetPage(1)
	params.SetPagesize(size)
	var r int
	err := cloudstackapi.Guard(func() error {
		resp, err := sdk.Kubernetes.ListKubernetesClusters(params)
		if err == nil {
			r = resp.Count
		}
		return err
	})
	// Without projectid CloudStack lists no project's cluster: those come in the inventory's
	// second listing (projectid=-1, check.include_projects), counted apart there.
	p.check("one page of clusters", fmt.Sprintf("CloudStack counts %d clusters outside projects", r), cloudstackapi.Hint(cloudstackapi.Redact(err)))
}

// inventoryCounts is the inventory line's text: the clusters outside projects and in them
// apart, so that it adds up with the first page's count.
func inventoryCounts(inv collector.Inventory) string {
	inProjects := 0
	for _, c := range inv.Clusters {
		if c.ProjectID != "" {
			inProjects++
		}
	}
	clusters := fmt.Sprintf("%d clusters", len(inv.Clusters))
	if inProjects > 0 {
		clusters += fmt.Sprintf(" (%d outside projects, %d in projects)", len(inv.Clusters)-inProjects, inProjects)
	}
	return fmt.Sprintf("%s, %d VMs", clusters, len(inv.VMs))
}

// logins lists the nodes of one checkable cluster per zone, all zones at once.
func (p *preflight) logins(ctx context.Context, cfg *config.Config, inv collector.Inventory, nodes NodeLister) {
	checked, _ := collector.Plan(inv, collector.Shard{}) // of every shard: the logins test the settings, not one replica's share
	first := make(map[string]collector.Cluster)
	for _, c := range checked {
		if f, seen := first[c.ZoneName]; !seen || c.Name < f.Name {
			first[c.ZoneName] = c
		}
	}
	zones := make([]string, 0, len(first))
	for z := range first {
		zones = append(zones, z)
	}
	sort.Strings(zones)
	lines := make([]func(), len(zones))
	var wg sync.WaitGroup
	for i, z := range zones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := first[z]
			names, err := nodes.ListNodes(ctx, c)
			what := fmt.Sprintf("%s login in zone %s (cluster %s)", cfg.Check.NodeSource, z, c.Name)
			if err != nil {
				reason := failureReason(err)
				err = &cloudstackapi.HintError{Err: err, Hint: reason + ": " + report.ReasonText(string(cfg.Check.NodeSource), reason)}
			}
			lines[i] = func() { p.check(what, fmt.Sprintf("%d Kubernetes nodes listed", len(names)), err) }
		}()
	}
	wg.Wait()
	for _, l := range lines {
		l()
	}
	if len(zones) == 0 {
		fmt.Fprintln(p.w, "--    no cluster in state Running or Alert: no login tried")
	}
}
