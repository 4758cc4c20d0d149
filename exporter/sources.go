package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/api"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/inventory/database"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/kubeapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
	"github.com/cks-drift-exporter/cks-drift-exporter/notifier/cloudstack"
)

// InventorySource reads every cluster and VM; the cycle does not know whether from the API or
// from the database.
type InventorySource interface {
	Inventory(ctx context.Context) (collector.Inventory, error)
}

// NodeLister reads the Kubernetes nodes of a cluster, with their kubelet versions where the
// source has them.
type NodeLister interface {
	ListNodes(ctx context.Context, c collector.Cluster) ([]collector.Node, error)
}

// sources are the back ends one configuration needs; a reload builds new ones.
type sources struct {
	api       *cloudstackapi.Client // the one CloudStack client of this configuration
	inventory InventorySource
	nodes     NodeLister
	listed    prometheus.Observer // observes the time of each node listing
	cloud     notifier.CloudStack
	close     func() error // releases the database pool; nil for the API
}

// notifierOptions are the notifier's settings in cfg.
func notifierOptions(cfg *config.Config) notifier.Options {
	n := cfg.Notifier
	return notifier.Options{
		Enabled: n.Enabled, FromAlertmanager: n.Mode == config.NotifierAlertmanager, Annotations: n.Annotations, Alerts: n.Alerts, MaxAlertsPerCycle: n.MaxAlertsPerCycle,
		Types: notifier.TypeRange{Min: n.AlertTypeMin, Max: n.AlertTypeMax}, FindingsURL: n.FindingsURL,
		MaxAnnotationsPerCluster: n.MaxAnnotationsPerCluster, Interval: cfg.Check.Interval, Concurrency: n.Concurrency,
		MaxPerClusterPerDay: n.MaxAnnouncementsPerClusterPerDay,
	}
}

// newSources builds the back ends of cfg. Files it needs (the SSH key, known_hosts, the CA) are
// read and the database DSN is parsed here, so that a reload with an unreadable file fails and
// keeps the running configuration. Start-up, reload and --config.check (CheckConfig) all build
// their back ends here, so that they judge a configuration alike.
func newSources(cfg *config.Config, pins ssh.PinStore, sshMetrics *ssh.Metrics, apiMetrics *cloudstackapi.Metrics, logger *slog.Logger) (sources, error) {
	// One CloudStack client, handed to whoever needs it: the API inventory source, the notifier's
	// writer and the kubeconfigs of the Kubernetes API node source.
	client, err := cloudstackapi.New(cloudstackapi.Options{
		Endpoint:           cfg.CloudStack.Endpoint,
		APIKey:             string(cfg.CloudStack.APIKey),
		SecretKey:          string(cfg.CloudStack.SecretKey),
		CAFile:             cfg.CloudStack.CAFile,
		InsecureSkipVerify: cfg.CloudStack.InsecureSkipVerify,
		Timeout:            cfg.CloudStack.Timeout,
		Metrics:            apiMetrics,
	})
	if err != nil {
		return sources{}, err
	}
	nodes, err := nodeLister(cfg, api.Kubeconfigs{API: client}, pins, sshMetrics, logger)
	if err != nil {
		return sources{}, err
	}
	src := sources{api: client, nodes: nodes, cloud: cloudstack.New(client, cfg.CloudStack.PageSize)}
	if sshMetrics != nil {
		src.listed = sshMetrics.ListDuration
	}
	if cfg.Inventory.Source == config.SourceDatabase {
		db, err := database.New(database.Options{
			DSN:             string(cfg.Database.DSN),
			MaxOpenConns:    cfg.Database.MaxOpenConns,
			MaxIdleConns:    cfg.Database.MaxIdleConns,
			ConnMaxLifetime: cfg.Database.ConnMaxLifetime,
			QueryTimeout:    cfg.Database.QueryTimeout,
			IncludeProjects: cfg.Check.IncludeProjects,
			SSHPort:         cfg.SSH.Port,
		})
		if err != nil {
			return sources{}, err // names the database and hides the password
		}
		src.inventory, src.close = db, db.Close
		return src, nil
	}
	src.inventory, err = api.On(client, api.Options{
		PageSize:        cfg.CloudStack.PageSize,
		IncludeProjects: cfg.Check.IncludeProjects,
		SSHPort:         cfg.SSH.Port,
		Logger:          logger,
	})
	if err != nil {
		return sources{}, err
	}
	return src, nil
}

// nodeLister builds the node source cfg names. With the Kubernetes API no SSH key is read, so
// that an operator can run the exporter without one.
func nodeLister(cfg *config.Config, kubeconfigs kubeapi.ConfigSource, pins ssh.PinStore, sshMetrics *ssh.Metrics, logger *slog.Logger) (NodeLister, error) {
	if cfg.Check.NodeSource == config.NodeSourceKubernetesAPI {
		l, err := kubeapi.New(kubeapi.Options{
			Timeout:       cfg.KubernetesAPI.Timeout,
			MaxNodes:      cfg.SSH.MaxNodes,
			KubeconfigDir: cfg.KubernetesAPI.KubeconfigDir,
			Configs:       kubeconfigs,
			Logger:        logger,
			Now:           time.Now,
		})
		if err != nil {
			return nil, fmt.Errorf("kubernetes_api: %w", err)
		}
		return l, nil
	}
	return sshLister(cfg, pins, sshMetrics, logger)
}

// sshLister builds the SSH node source, reading its key and known_hosts.
func sshLister(cfg *config.Config, pins ssh.PinStore, sshMetrics *ssh.Metrics, logger *slog.Logger) (NodeLister, error) {
	signer, err := ssh.ReadPrivateKey(cfg.SSH.PrivateKeyFile)
	if err != nil {
		return nil, fmt.Errorf("ssh.private_key_file: %w", err)
	}
	lister, err := ssh.NewLister(ssh.Options{
		User:           cfg.SSH.User,
		Signer:         signer,
		Policy:         cfg.SSH.HostKeyPolicy,
		KnownHostsFile: cfg.SSH.KnownHostsFile,
		Pins:           pins,
		Timeout:        cfg.SSH.Timeout,
		Command:        cfg.SSH.KubectlCommand,
		MaxNodes:       cfg.SSH.MaxNodes,
		Metrics:        sshMetrics,
		Logger:         logger,
	})
	if err != nil {
		return nil, fmt.Errorf("ssh: %w", err)
	}
	return lister, nil
}

// failureReason is the kubectl_failures_total label of a node listing error of either source.
func failureReason(err error) string {
	var labelled interface{ Reason() string }
	if errors.As(err, &labelled) {
		return labelled.Reason()
	}
	return ssh.Reason(err)
}

// nodeFailureReasons lists the labels of both sources, each once, so that every one is exported
// at zero from the start whichever source is configured (a reload may switch).
func nodeFailureReasons() []string {
	var out []string
	seen := make(map[string]bool)
	for _, r := range append(ssh.Reasons(), kubeapi.Reasons()...) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
