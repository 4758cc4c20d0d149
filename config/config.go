// Package config reads, checks and redacts the exporter's YAML configuration file.
package config

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the whole configuration file. Load and Parse are the only ways to
// get one that has been validated and has its secrets read, so code that takes
// a *Config from them never has to check it again.
type Config struct {
	CloudStack CloudStack `yaml:"cloudstack"`
	Check      Check      `yaml:"check"`
	SSH        SSH        `yaml:"ssh"`
	Notifier   Notifier   `yaml:"notifier"`
	Storage    Storage    `yaml:"storage"`
	Inventory  Inventory  `yaml:"inventory"`
	Database   Database   `yaml:"database"`
	// KubernetesAPI says how nodes are listed with check.node_source kubernetes_api.
	KubernetesAPI KubernetesAPI `yaml:"kubernetes_api"`
	// Events says how CloudStack's events reach the exporter; see Events.
	Events Events `yaml:"events"`
	// Accept lists the findings an operator accepts; a reload applies changes.
	Accept []AcceptRule `yaml:"accept,omitempty"`
}

// Inventory says where clusters, VM maps and VMs are read from. The API cannot show map rows
// whose VM was expunged or never existed; the database can.
type Inventory struct {
	Source InventorySource `yaml:"source"` // api (the CloudStack API) or database (CloudStack's database, read-only: sees every map row).
}

// InventorySource names a source of the inventory.
type InventorySource string

const (
	// SourceAPI reads the inventory through the CloudStack API.
	SourceAPI InventorySource = "api"
	// SourceDatabase reads CloudStack's database, read-only.
	SourceDatabase InventorySource = "database"
)

// Database says how to read CloudStack's database (MySQL or MariaDB) with inventory.source
// database. DSN is in go-sql-driver/mysql's form, user:password@tcp(host:3306)/cloud; it holds a
// password, so it is a secret, given inline (as "${VAR}") or in DSNFile.
type Database struct {
	DSN             Secret        `yaml:"dsn,omitempty"`      // user:password@tcp(host:3306)/cloud (go-sql-driver/mysql), inline (as "${VAR}"); or dsn_file.
	DSNFile         string        `yaml:"dsn_file,omitempty"` // A file holding the DSN.
	MaxOpenConns    int           `yaml:"max_open_conns"`     // Connections to the database at most.
	MaxIdleConns    int           `yaml:"max_idle_conns"`     // Idle connections kept between cycles.
	ConnMaxLifetime time.Duration `yaml:"conn_max_lifetime"`  // A connection is closed after this long.
	QueryTimeout    time.Duration `yaml:"query_timeout"`      // Bounds one query.
}

// CloudStack says how to reach the CloudStack API. After loading, APIKey and
// SecretKey hold the keys whether they were written inline or in files; the
// *File fields are kept so a reload reads the files again.
type CloudStack struct {
	Endpoint           string        `yaml:"endpoint"`                  // The management server's API URL, e.g. https://cloud.example.com/client/api (required).
	UIURL              string        `yaml:"ui_url"`                    // CloudStack's web UI, which the status page links clusters and VMs into; empty: the one beside the endpoint (https://cloud.example.com/client/ for https://cloud.example.com/client/api).
	APIKey             Secret        `yaml:"api_key,omitempty"`         // A root admin's API key, inline (as "${VAR}"); or api_key_file.
	APIKeyFile         string        `yaml:"api_key_file,omitempty"`    // A file holding the API key (read whole, white space trimmed).
	SecretKey          Secret        `yaml:"secret_key,omitempty"`      // The secret key of api_key, inline (as "${VAR}"); or secret_key_file.
	SecretKeyFile      string        `yaml:"secret_key_file,omitempty"` // A file holding the secret key.
	CAFile             string        `yaml:"ca_file"`                   // The CA of the API's TLS certificate, instead of the system roots.
	InsecureSkipVerify bool          `yaml:"insecure_skip_verify"`      // Skip the API's TLS verification (labs only; logged at WARN).
	Timeout            time.Duration `yaml:"timeout"`                   // Bounds one API request.
	PageSize           int           `yaml:"page_size"`                 // Items per list page, 1..500 (CloudStack's default.page.size).
}

// Check holds the on/off setting and the pace of the check cycle. Enabled is
// read on every reload, so an operator can pause checking without a restart.
type Check struct {
	Enabled     bool          `yaml:"enabled"`      // The on/off setting: false reads nothing from CloudStack, opens no SSH session and announces nothing; read on every reload.
	Interval    time.Duration `yaml:"interval"`     // Time between the starts of two cycles.
	GracePeriod time.Duration `yaml:"grace_period"` // VMs younger than this are never flagged.
	// StuckAfter is how long a cluster may stay in one operation state (Scaling, Upgrading,
	// Starting, Stopping, RemovingNodes, Recovering, Importing, ...) before it is a
	// stuck_in_operation finding; 0 turns the finding off. Read on every reload.
	StuckAfter  time.Duration `yaml:"stuck_after"`
	Concurrency int           `yaml:"concurrency"` // Clusters whose nodes are listed at once (SSH sessions or API requests), 1..1024.
	// HangingConcurrency is how many clusters whose control node timed out in the last cycle, or
	// took longer than half of ssh.timeout (kubernetes_api.timeout) to answer, are listed at once,
	// 1..1024, in a lane of their own beside the check.concurrency workers of the others: they
	// mostly wait, which costs a socket and no CPU.
	HangingConcurrency int  `yaml:"hanging_concurrency"`
	IncludeProjects    bool `yaml:"include_projects"` // Also check project-owned clusters (listed with projectid=-1).
	// MaxFindingSeriesPerCluster bounds the cks_drift_finding series of one cluster (its oldest
	// findings), 1..100000; cks_drift_findings keeps the exact count and
	// cks_drift_finding_series_omitted says how many were left out.
	MaxFindingSeriesPerCluster int `yaml:"max_finding_series_per_cluster"`
	// Shard and TotalShards split the clusters between replicas, as kube-state-metrics does:
	// a replica checks and announces the clusters whose uuid hashes to its shard.
	Shard       int `yaml:"shard"`
	TotalShards int `yaml:"total_shards"` // The number of shards the clusters are split into; see check.shard.
	// NodeSource says where each cluster's Kubernetes nodes are listed from.
	NodeSource NodeSource `yaml:"node_source"`
}

// SSH says how the node lister logs in to a cluster's control node to run
// kubectl. Port 0 means the port is discovered from the cluster's
// port-forwarding rules, which is how CKS exposes SSH.
type SSH struct {
	User           string        `yaml:"user"`             // The login user where CloudStack recorded none for a cluster (its controlNodeLoginUser detail wins; core for clusters created up to 4.16.0).
	PrivateKeyFile string        `yaml:"private_key_file"` // The key CKS puts on its nodes: the management server's ~/.ssh/id_rsa.
	KnownHostsFile string        `yaml:"known_hosts_file"` // The host keys accepted with host_key_policy strict.
	HostKeyPolicy  HostKeyPolicy `yaml:"host_key_policy"`  // strict (known_hosts_file), pin (the first key a node shows, then only it) or insecure.
	Port           int           `yaml:"port"`             // 0 discovers the port from the cluster's port-forwarding rules; another value is used for every cluster.
	Timeout        time.Duration `yaml:"timeout"`          // Bounds connect, handshake and command of one cluster.
	KubectlCommand string        `yaml:"kubectl_command"`  // The command run on the first control node; it prints "<name> <kubelet version>" lines (the version compared with the cluster's in CloudStack) or "node/<name>" lines.
	// MaxNodes bounds the node list of one cluster: a longer one is not a real cluster's and
	// makes the node side unreadable for that cycle.
	MaxNodes int `yaml:"max_nodes"`
}

// DefaultKubectlCommand is the default ssh.kubectl_command. It prints one "<name> <kubelet
// version>" line per node (custom columns without a header; "<none>" where a node reports no
// version), so that the node check also compares each kubelet's version with the cluster's
// Kubernetes version in CloudStack. kubectl's own --request-timeout is short enough that a hung
// API server makes kubectl exit with its message before the default ssh.timeout of 10 s cuts the
// session: without a discovery cache (a new node, or one older than its TTL) real kubectl waits
// five (v1.37) or six (v1.32) times --request-timeout before it gives up, 5-6 s at 1s, 11-12 s
// at 2s and 25-30 s at 5s; with a fresh cache once or twice (docs/node-sources.md has the
// measurement). A request of a real list takes a fraction of a second; one that needs more is an
// overloaded API server, which kubectl then names.
const DefaultKubectlCommand = "sudo /opt/bin/kubectl get nodes --no-headers -o custom-columns=NAME:.metadata.name,VERSION:.status.nodeInfo.kubeletVersion --request-timeout=1s"

// HostKeyPolicy says how far a control node's SSH host key is trusted.
type HostKeyPolicy string

const (
	// HostKeyStrict accepts only keys listed in ssh.known_hosts_file.
	HostKeyStrict HostKeyPolicy = "strict"
	// HostKeyPin trusts the first key a node shows and refuses any other one
	// afterwards, because CKS nodes are created without a known_hosts entry.
	HostKeyPin HostKeyPolicy = "pin"
	// HostKeyInsecure accepts any key; it is meant for labs and the demo.
	HostKeyInsecure HostKeyPolicy = "insecure"
)

// Notifier says what is announced to CloudStack. MaxAlertsPerCycle caps the
// alerts so that a cloud-wide problem does not flood the alert list.
type Notifier struct {
	Enabled bool `yaml:"enabled"` // Announce new findings and resolutions to CloudStack.
	// Mode says what drives the announcements: "direct", the exporter's own cycle, or
	// "alertmanager", the drift alerts that Alertmanager sends to /alertmanager/webhook (for
	// setups with several Prometheus servers or exporter replicas, where Alertmanager
	// de-duplicates).
	Mode              NotifierMode `yaml:"mode"`
	Annotations       bool         `yaml:"annotations"`          // One admins-only annotation on the cluster per event.
	Alerts            bool         `yaml:"alerts"`               // One CloudStack alert (generateAlert) per new finding.
	MaxAlertsPerCycle int          `yaml:"max_alerts_per_cycle"` // The alert cap: alerts for new findings per cycle across all clusters; the rest go into one summary alert.
	// MaxAnnotationsPerCluster caps the annotations one cluster gets per cycle (per check
	// interval in alertmanager mode); past it one summary annotation says how many more
	// findings there are, so that one cluster cannot make the notifier write without bound.
	MaxAnnotationsPerCluster int `yaml:"max_annotations_per_cluster"`
	// MaxAnnouncementsPerClusterPerDay bounds the annotations and alerts about one cluster over a
	// rolling 24 hours, kept across restarts; past it one summary annotation (once in 24 hours)
	// says that its new findings are listed in /findings only.
	MaxAnnouncementsPerClusterPerDay int `yaml:"max_announcements_per_cluster_per_day"`
	// Concurrency bounds the notifier's CloudStack API calls in flight at once: the calls of one
	// pass run in parallel across clusters, those of one cluster in order.
	Concurrency int `yaml:"concurrency"`
	// WebhookToken is the bearer token Alertmanager must send to /alertmanager/webhook (its
	// http_config.authorization), required in alertmanager mode; inline (as "${VAR}") or in
	// WebhookTokenFile.
	WebhookToken     Secret `yaml:"webhook_token,omitempty"`
	WebhookTokenFile string `yaml:"webhook_token_file,omitempty"` // A file holding webhook_token.
	// AlertTypeMin and AlertTypeMax bound the alert types the notifier uses, one per open
	// finding (CloudStack keeps only one un-archived alert per type and zone); the highest is
	// kept for the summary of capped findings. The range must stay clear of CloudStack's
	// built-in alert types.
	AlertTypeMin int `yaml:"alert_type_min"`
	AlertTypeMax int `yaml:"alert_type_max"` // The highest alert type, kept for the summary alert; see alert_type_min.
	// FindingsURL is the exporter's /findings address as operators reach it, named in the
	// summary alert; empty names the path only.
	FindingsURL string `yaml:"findings_url"`
}

// NotifierMode says what drives the announcements.
type NotifierMode string

const (
	// NotifierDirect announces what the exporter's own cycle finds.
	NotifierDirect NotifierMode = "direct"
	// NotifierAlertmanager announces the drift alerts Alertmanager sends to the webhook.
	NotifierAlertmanager NotifierMode = "alertmanager"
)

// Storage says where the findings and their notification state are kept, so
// that a restart does not announce known drift again.
type Storage struct {
	Path string `yaml:"path"` // The state file (bbolt): what was announced, first-seen times and pinned host keys. It cannot change while running.
}

// defaults returns the configuration used for every key the file leaves out.
// Decoding onto it (rather than filling zero values afterwards) lets a file
// say "enabled: false" or "port: 0" and be taken at its word.
func defaults() Config {
	return Config{
		CloudStack: CloudStack{
			Timeout:  30 * time.Second,
			PageSize: 500,
		},
		Check: Check{
			Enabled:     true,
			Interval:    5 * time.Minute,
			GracePeriod: 15 * time.Minute,
			StuckAfter:  time.Hour,
			Concurrency: 16,
			// 3% of 10,000 control nodes hanging at a 10 s timeout: 10 rounds, 100 s, beside
			// the 9,700 others at 16 (see the benchmarks).
			HangingConcurrency:         32,
			IncludeProjects:            true,
			MaxFindingSeriesPerCluster: 100,
			TotalShards:                1,
			NodeSource:                 NodeSourceSSH,
		},
		SSH: SSH{
			User:           "cloud",
			PrivateKeyFile: "/var/lib/cloudstack/management/.ssh/id_rsa",
			HostKeyPolicy:  HostKeyPin,
			Timeout:        10 * time.Second,
			KubectlCommand: DefaultKubectlCommand,
			MaxNodes:       1000,
		},
		Notifier: Notifier{
			Enabled:                  true,
			Mode:                     NotifierDirect,
			Annotations:              true,
			Alerts:                   true,
			MaxAlertsPerCycle:        5,
			MaxAnnotationsPerCluster: 10,
			// A cluster with a few real findings a day never meets it; one that invents node
			// names every cycle gets 100 writes a day instead of 3,000.
			MaxAnnouncementsPerClusterPerDay: 100,
			Concurrency:                      8,
			AlertTypeMin:                     20000,
			AlertTypeMax:                     29999,
		},
		Inventory: Inventory{Source: SourceAPI},
		Database: Database{
			MaxOpenConns:    2,
			MaxIdleConns:    1,
			ConnMaxLifetime: 5 * time.Minute,
			QueryTimeout:    30 * time.Second,
		},
		Storage: Storage{
			Path: "/var/lib/cks-drift-exporter/state.db",
		},
		KubernetesAPI: KubernetesAPI{Timeout: 10 * time.Second},
		Events: Events{
			AMQP:         EventsAMQP{Exchange: "cloudstack-events"},
			RecheckDelay: 2 * time.Second,
			// Two a second: at six API requests each, a small share of what a sweep of a large
			// cloud asks.
			MaxRechecksPerMinute: 120,
		},
	}
}

// Redacted returns the configuration as YAML with every secret shown as
// "<secret>", so the effective configuration can be logged at debug level.
func (c *Config) Redacted() string {
	out, err := yaml.Marshal(c)
	if err != nil {
		return fmt.Sprintf("<configuration cannot be shown: %v>", err)
	}
	return string(out)
}
