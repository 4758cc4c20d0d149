package config

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// validate checks the decoded values against each other and their ranges.
// It sees the secret file settings, not the secrets: those are read after.
func validate(c *Config) []*problem {
	var v validation
	cs := c.CloudStack
	if cs.Endpoint == "" {
		v.add("cloudstack.endpoint", "cloudstack.endpoint is required")
	} else if u, err := url.Parse(cs.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.keyf("cloudstack.endpoint", "must be an http or https URL such as https://cloud.example.com/client/api")
	}
	if cs.UIURL != "" {
		if u, err := url.Parse(cs.UIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			v.keyf("cloudstack.ui_url", "must be an http or https URL such as https://cloud.example.com/client/")
		}
	}
	v.onePair("cloudstack.api_key", cs.APIKey, cs.APIKeyFile)
	v.onePair("cloudstack.secret_key", cs.SecretKey, cs.SecretKeyFile)
	v.positive("cloudstack.timeout", cs.Timeout)
	v.between("cloudstack.page_size", cs.PageSize, 1, 500)

	v.positive("check.interval", c.Check.Interval)
	if c.Check.GracePeriod < 0 {
		v.keyf("check.grace_period", "must not be negative")
	}
	if c.Check.StuckAfter < 0 {
		v.keyf("check.stuck_after", "must not be negative (0 turns stuck_in_operation off)")
	}
	v.between("check.concurrency", c.Check.Concurrency, 1, 1024)
	v.between("check.hanging_concurrency", c.Check.HangingConcurrency, 1, 1024)
	v.between("check.max_finding_series_per_cluster", c.Check.MaxFindingSeriesPerCluster, 1, 100000)
	v.between("check.total_shards", c.Check.TotalShards, 1, maxShards)
	if c.Check.TotalShards >= 1 {
		v.between("check.shard", c.Check.Shard, 0, c.Check.TotalShards-1)
	}

	s := c.SSH
	v.notEmpty("ssh.user", s.User)
	v.notEmpty("ssh.private_key_file", s.PrivateKeyFile)
	switch s.HostKeyPolicy {
	case HostKeyPin, HostKeyInsecure:
	case HostKeyStrict:
		if s.KnownHostsFile == "" {
			v.add("ssh.known_hosts_file", "ssh.known_hosts_file is required when ssh.host_key_policy is strict")
		}
	default:
		v.keyf("ssh.host_key_policy", "must be strict, pin or insecure, not %q", s.HostKeyPolicy)
	}
	v.between("ssh.port", s.Port, 0, 65535)
	v.positive("ssh.timeout", s.Timeout)
	v.notEmpty("ssh.kubectl_command", s.KubectlCommand)
	v.between("ssh.max_nodes", s.MaxNodes, 1, 100000)

	switch c.Notifier.Mode {
	case NotifierDirect, NotifierAlertmanager:
	default:
		v.keyf("notifier.mode", "must be direct or alertmanager, not %q", c.Notifier.Mode)
	}
	if c.Notifier.MaxAlertsPerCycle < 0 {
		v.keyf("notifier.max_alerts_per_cycle", "must not be negative")
	}
	if c.Notifier.MaxAnnotationsPerCluster < 0 {
		v.keyf("notifier.max_annotations_per_cluster", "must not be negative")
	}
	v.between("notifier.max_announcements_per_cluster_per_day", c.Notifier.MaxAnnouncementsPerClusterPerDay, 1, 100000)
	v.between("notifier.concurrency", c.Notifier.Concurrency, 1, 64)
	if c.Notifier.Mode == NotifierAlertmanager {
		// Without a token anyone who reaches the port could post forged alerts and make the
		// exporter write to CloudStack.
		v.onePair("notifier.webhook_token", c.Notifier.WebhookToken, c.Notifier.WebhookTokenFile)
	}
	// CloudStack's built-in alert types are below 100 today; 1000 leaves room for new ones. The
	// type is a 16-bit column.
	v.between("notifier.alert_type_min", c.Notifier.AlertTypeMin, 1000, 32766)
	v.between("notifier.alert_type_max", c.Notifier.AlertTypeMax, 1001, 32767)
	if c.Notifier.AlertTypeMax-c.Notifier.AlertTypeMin < 10 {
		v.keyf("notifier.alert_type_max", "must be at least 10 above notifier.alert_type_min")
	}
	v.notEmpty("storage.path", c.Storage.Path)

	switch c.Inventory.Source {
	case SourceAPI:
	case SourceDatabase:
		v.onePair("database.dsn", c.Database.DSN, c.Database.DSNFile)
	default:
		v.keyf("inventory.source", "must be api or database, not %q", c.Inventory.Source)
	}
	v.between("database.max_open_conns", c.Database.MaxOpenConns, 1, 100)
	v.between("database.max_idle_conns", c.Database.MaxIdleConns, 0, 100)
	v.positive("database.conn_max_lifetime", c.Database.ConnMaxLifetime)
	v.positive("database.query_timeout", c.Database.QueryTimeout)
	v.nodeSource(c)
	v.events(c.Events)
	v.accept(c.Accept)
	return v
}

// validation collects the problems found by validate.
type validation []*problem

func (v *validation) add(key, msg string) {
	*v = append(*v, &problem{key: key, msg: msg})
}

func (v *validation) keyf(key, format string, args ...any) {
	v.add(key, key+": "+fmt.Sprintf(format, args...))
}

func (v *validation) positive(key string, d time.Duration) {
	if d <= 0 {
		v.keyf(key, "must be greater than zero")
	}
}

func (v *validation) between(key string, n, lo, hi int) {
	if n < lo || n > hi {
		v.keyf(key, "must be between %d and %d, not %d", lo, hi, n)
	}
}

func (v *validation) notEmpty(key, s string) {
	if strings.TrimSpace(s) == "" {
		v.keyf(key, "must not be empty")
	}
}

// onePair checks that a secret is given exactly once: inline (usually as
// "${VAR}") or as a file, so that it is never unclear which one is used.
func (v *validation) onePair(key string, inline Secret, file string) {
	switch {
	case inline != "" && file != "":
		v.keyf(key, "cannot be used together with %s_file", key)
	case inline == "" && file == "":
		v.add(key, fmt.Sprintf("%s or %s_file is required", key, key))
	}
}

// resolvePaths makes the relative paths of the file relative to dir, the
// directory of the configuration file.
func resolvePaths(c *Config, dir string) {
	for _, p := range []*string{
		&c.CloudStack.APIKeyFile, &c.CloudStack.SecretKeyFile, &c.CloudStack.CAFile,
		&c.SSH.PrivateKeyFile, &c.SSH.KnownHostsFile, &c.Storage.Path, &c.Database.DSNFile,
		&c.KubernetesAPI.KubeconfigDir,
		&c.Notifier.WebhookTokenFile, &c.Events.Webhook.SecretKeyFile,
		&c.Events.AMQP.PasswordFile, &c.Events.AMQP.CAFile, &c.Events.AMQP.CertFile, &c.Events.AMQP.KeyFile,
	} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
}

// readSecrets reads the secret files into APIKey and SecretKey. A file is
// read only when it is the one source of its secret and its setting has no
// problem yet. Messages name the file but never show what it holds.
func readSecrets(c *Config, known []*problem) []*problem {
	cs := &c.CloudStack
	var ps []*problem
	for _, s := range []struct {
		key    string
		file   string
		secret *Secret
	}{
		{"cloudstack.api_key", cs.APIKeyFile, &cs.APIKey},
		{"cloudstack.secret_key", cs.SecretKeyFile, &cs.SecretKey},
		{"database.dsn", c.Database.DSNFile, &c.Database.DSN},
		{"notifier.webhook_token", c.Notifier.WebhookTokenFile, &c.Notifier.WebhookToken},
		{"events.webhook.secret_key", c.Events.Webhook.SecretKeyFile, &c.Events.Webhook.SecretKey},
		{"events.amqp.password", c.Events.AMQP.PasswordFile, &c.Events.AMQP.Password},
	} {
		fileKey := s.key + "_file"
		if s.file == "" || *s.secret != "" || reported(known, s.key) || reported(known, fileKey) {
			continue
		}
		data, err := os.ReadFile(s.file)
		if err != nil {
			ps = append(ps, &problem{key: fileKey, msg: fileKey + ": " + err.Error(), err: err})
			continue
		}
		value := strings.TrimSpace(string(data))
		if value == "" {
			ps = append(ps, &problem{key: fileKey, msg: fmt.Sprintf("%s: %s is empty", fileKey, s.file)})
			continue
		}
		*s.secret = Secret(value)
	}
	return ps
}
