package main

// The one-cluster-at-a-time reference: what a cron script (cloudmonkey + ssh in a loop) or a
// single-threaded check inside a management server does. It lists the clusters once, then for
// each cluster, one after the other:
//
//  1. listKubernetesClusters id=<cluster>           its VM map,
//  2. listVirtualMachines keyword=<prefix> listall  the VMs named as its nodes,
//  3. listPortForwardingRules ipaddressid=<its IP>  the SSH port of its control node,
//  4. kubectl over SSH with the exporter's own client (collector/nodes/ssh Lister, same timeout),
//  5. the exporter's own comparison (collector.Compare).
//
// It runs as a process of its own (bench sequential ...) so that its peak RSS is its own too.
// With more clusters than -sample it visits a sample with the world's share of hanging control
// nodes and extrapolates linearly: discovery + healthy × mean(healthy) + hanging × mean(hanging).

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"
	"golang.org/x/crypto/ssh"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	nodessh "github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/sshtest"
	"github.com/cks-drift-exporter/cks-drift-exporter/test/bench/world"
)

// seqResult is what the reference measured and what it extrapolates to.
type seqResult struct {
	SampledHealthy   int     `json:"sampled_healthy"`
	SampledHanging   int     `json:"sampled_hanging"`
	DiscoverySeconds float64 `json:"discovery_seconds"`
	DiscoveryCalls   int     `json:"discovery_calls"`
	MeanHealthy      float64 `json:"mean_healthy_seconds"`
	MeanHanging      float64 `json:"mean_hanging_seconds"`
	MeasuredSeconds  float64 `json:"measured_seconds"`
	MeasuredCalls    int     `json:"measured_calls"`
	Extrapolated     bool    `json:"extrapolated"`
	WorldSeconds     float64 `json:"world_seconds"`
	WorldCalls       int     `json:"world_calls"`
	WorldSSH         int     `json:"world_ssh_connections"`
	PeakRSSKiB       int64   `json:"peak_rss_kib"`
	Unexpected       int     `json:"unexpected_errors"`
	Findings         int     `json:"findings"`
	FirstError       string  `json:"first_error,omitempty"`
}

// runSequential runs the reference as a child process and reads its JSON answer.
func runSequential(ctx context.Context, o options, bins binaries, dir string) (seqResult, error) {
	var r seqResult
	logFile, err := os.Create(filepath.Join(dir, "one-at-a-time.log"))
	if err != nil {
		return r, err
	}
	defer logFile.Close()
	cmd := exec.CommandContext(ctx, bins.self, "sequential", "-world", filepath.Join(dir, "world.json"),
		"-sample", strconv.Itoa(o.seqSample), "-ssh-timeout", o.sshTimeout.String(), "-page-size", strconv.Itoa(o.pageSize),
		"-include-projects="+strconv.FormatBool(o.includeProjects))
	cmd.Stderr = logFile
	out, err := cmd.Output()
	if err != nil {
		return r, fmt.Errorf("%w (log %s)", err, logFile.Name())
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return r, err
	}
	if r.Unexpected > 0 {
		return r, fmt.Errorf("%d clusters failed unexpectedly, first: %s", r.Unexpected, r.FirstError)
	}
	return r, nil
}

func sequentialMain(args []string) int {
	fs := flag.NewFlagSet("sequential", flag.ExitOnError)
	worldFile := fs.String("world", "", "world.json of the running benchfake")
	sample := fs.Int("sample", 100, "clusters to visit; more are extrapolated")
	d := config.Defaults()
	timeout := fs.Duration("ssh-timeout", d.SSH.Timeout, "SSH timeout")
	pageSize := fs.Int("page-size", d.CloudStack.PageSize, "page size of the cluster listing")
	includeProjects := fs.Bool("include-projects", d.Check.IncludeProjects, "list project clusters too")
	_ = fs.Parse(args)
	r, err := sequential(*worldFile, *sample, *timeout, *pageSize, *includeProjects)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench sequential:", err)
		return 1
	}
	r.PeakRSSKiB, _ = world.Memory(0)
	_ = json.NewEncoder(os.Stdout).Encode(r)
	return 0
}

func sequential(worldFile string, sample int, timeout time.Duration, pageSize int, includeProjects bool) (seqResult, error) {
	var r seqResult
	raw, err := os.ReadFile(worldFile)
	if err != nil {
		return r, err
	}
	var info world.Info
	if err := json.Unmarshal(raw, &info); err != nil {
		return r, err
	}
	pem, err := os.ReadFile(info.KeyFile)
	if err != nil {
		return r, err
	}
	signer, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		return r, err
	}
	lister, err := nodessh.NewLister(nodessh.Options{User: sshtest.DefaultUser, Signer: signer, Policy: config.HostKeyPin,
		Pins: &nodessh.MemoryPins{}, Timeout: timeout, Command: sshtest.DefaultCommand, MaxNodes: 1000,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return r, err
	}
	client := cs.NewAsyncClient(info.Endpoint, info.APIKey, info.SecretKey, false,
		cs.WithHTTPClient(&http.Client{Timeout: time.Minute}))
	ctx := context.Background()
	start := time.Now()

	// The script's first step: which clusters are there.
	scopes := []string{""}
	if includeProjects {
		scopes = append(scopes, "-1")
	}
	checkable := 0
	for _, scope := range scopes {
		for page, seen := 1, 0; ; page++ {
			p := client.Kubernetes.NewListKubernetesClustersParams()
			p.SetListall(true)
			p.SetPage(page)
			p.SetPagesize(pageSize)
			if scope != "" {
				p.SetProjectid(scope)
			}
			resp, err := client.Kubernetes.ListKubernetesClusters(p)
			r.DiscoveryCalls++
			if err != nil {
				return r, fmt.Errorf("list clusters: %w", err)
			}
			for _, k := range resp.KubernetesClusters {
				if k.State == "Running" || k.State == "Alert" {
					checkable++
				}
			}
			seen += len(resp.KubernetesClusters)
			if len(resp.KubernetesClusters) == 0 || seen >= resp.Count {
				break
			}
		}
	}
	r.DiscoverySeconds = time.Since(start).Seconds()
	if checkable != len(info.Clusters) {
		return r, fmt.Errorf("listed %d checkable clusters, the world has %d", checkable, len(info.Clusters))
	}

	var healthy, hanging []world.Cluster
	for _, c := range info.Clusters {
		if c.Hang {
			hanging = append(hanging, c)
		} else {
			healthy = append(healthy, c)
		}
	}
	visit := info.Clusters
	if len(info.Clusters) > sample {
		r.Extrapolated = true
		kh := int(math.Round(float64(sample) * float64(len(hanging)) / float64(len(info.Clusters))))
		if len(hanging) > 0 {
			kh = max(kh, 1)
		}
		kh = min(kh, len(hanging))
		visit = append(spread(healthy, sample-kh), spread(hanging, kh)...)
	}
	var sumHealthy, sumHanging float64
	for _, c := range visit {
		t := time.Now()
		calls, findings, err := checkOne(ctx, client, lister, c)
		d := time.Since(t).Seconds()
		r.MeasuredCalls += calls
		r.Findings += findings
		switch {
		case c.Hang && nodessh.Reason(err) == "timeout":
			r.SampledHanging++
			sumHanging += d
		case !c.Hang && err == nil:
			r.SampledHealthy++
			sumHealthy += d
		default:
			r.Unexpected++
			if r.FirstError == "" {
				r.FirstError = fmt.Sprintf("%s (hang %t): %v", c.Name, c.Hang, err)
			}
		}
	}
	r.MeasuredSeconds = time.Since(start).Seconds()
	if r.SampledHealthy > 0 {
		r.MeanHealthy = sumHealthy / float64(r.SampledHealthy)
	}
	if r.SampledHanging > 0 {
		r.MeanHanging = sumHanging / float64(r.SampledHanging)
	}
	r.WorldSSH = len(info.Clusters)
	if r.Extrapolated {
		r.WorldSeconds = r.DiscoverySeconds + float64(len(healthy))*r.MeanHealthy + float64(len(hanging))*r.MeanHanging
		r.WorldCalls = r.DiscoveryCalls + len(info.Clusters)*r.MeasuredCalls/max(len(visit), 1)
	} else {
		r.WorldSeconds = r.MeasuredSeconds
		r.WorldCalls = r.DiscoveryCalls + r.MeasuredCalls
	}
	return r, nil
}

// spread picks n clusters evenly spread over cs.
func spread(cs []world.Cluster, n int) []world.Cluster {
	if n >= len(cs) {
		return cs
	}
	out := make([]world.Cluster, 0, n)
	for i := range n {
		out = append(out, cs[i*len(cs)/n])
	}
	return out
}

// checkOne checks one cluster the naive way and returns the API calls it made, its findings
// and the SSH error (nil when the nodes were listed).
func checkOne(ctx context.Context, client *cs.CloudStackClient, lister *nodessh.Lister, c world.Cluster) (calls, findings int, sshErr error) {
	kp := client.Kubernetes.NewListKubernetesClustersParams()
	kp.SetId(c.ID)
	if c.ProjectID != "" {
		kp.SetProjectid(c.ProjectID)
	}
	kr, err := client.Kubernetes.ListKubernetesClusters(kp)
	calls++
	if err != nil {
		return calls, 0, fmt.Errorf("listKubernetesClusters: %w", err)
	}
	if len(kr.KubernetesClusters) != 1 {
		return calls, 0, fmt.Errorf("listKubernetesClusters id=%s: %d clusters", c.ID, len(kr.KubernetesClusters))
	}
	k := kr.KubernetesClusters[0]

	vp := client.VirtualMachine.NewListVirtualMachinesParams()
	vp.SetListall(true)
	vp.SetKeyword(world.Prefix(k.Name) + "-")
	vp.SetDetails([]string{"min"})
	if c.ProjectID != "" {
		vp.SetProjectid(c.ProjectID)
	}
	vr, err := client.VirtualMachine.ListVirtualMachines(vp)
	calls++
	if err != nil {
		return calls, 0, fmt.Errorf("listVirtualMachines: %w", err)
	}

	fp := client.Firewall.NewListPortForwardingRulesParams()
	fp.SetIpaddressid(k.Ipaddressid)
	fp.SetListall(true)
	if c.ProjectID != "" {
		fp.SetProjectid(c.ProjectID)
	}
	fr, err := client.Firewall.ListPortForwardingRules(fp)
	calls++
	if err != nil {
		return calls, 0, fmt.Errorf("listPortForwardingRules: %w", err)
	}

	cl := collector.Cluster{ID: k.Id, Name: k.Name, State: k.State, ClusterType: k.Clustertype, Account: k.Account,
		DomainID: k.Domainid, ProjectID: k.Projectid, ControlNodes: int(k.Controlnodes), WorkerNodes: int(k.Size), EtcdNodes: int(k.Etcdnodes)}
	var control string
	for _, v := range k.Virtualmachines {
		cl.Mapped = append(cl.Mapped, collector.MappedVM{ID: v.Id, Name: v.Name, State: v.State})
		if control == "" && strings.Contains(v.Name, "-control") {
			control = v.Id
		}
	}
	if control == "" {
		return calls, 0, errors.New("no control VM")
	}
	cl.SSH = collector.SSHTarget{Host: k.Ipaddress, Port: 2222}
	for _, rule := range fr.PortForwardingRules {
		if rule.Privateport == "22" && rule.Virtualmachineid == control {
			cl.SSH.Port, _ = strconv.Atoi(rule.Publicport)
		}
	}
	var vms []collector.VM
	for _, v := range vr.VirtualMachines {
		vms = append(vms, collector.VM{ID: v.Id, Name: v.Name, State: v.State, Account: v.Account, DomainID: v.Domainid, ProjectID: v.Projectid})
	}

	nodes, sshErr := lister.Nodes(ctx, cl)
	var nl collector.NodeList // not read
	if sshErr == nil {
		nl = collector.NodesRead(nodes, nil)
	}
	idx := collector.NewIndex(collector.Inventory{Clusters: []collector.Cluster{cl}, VMs: vms})
	res := collector.Compare(cl, idx, nl, time.Now(), 15*time.Minute)
	return calls, len(res.VM) + len(res.Node), sshErr
}
