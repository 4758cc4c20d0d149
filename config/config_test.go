package config

import (
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadGood(t *testing.T) {
	t.Parallel()
	got, err := Load("testdata/good.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		CloudStack: CloudStack{
			Endpoint:           "https://cloud.example.com/client/api",
			APIKey:             "AK-Zebra-Quokka-7731",
			APIKeyFile:         "testdata/secrets/api-key",
			SecretKey:          "SK-Heron-Walrus-2290",
			SecretKeyFile:      "testdata/secrets/secret-key",
			CAFile:             "/etc/cks-drift-exporter/ca.pem",
			InsecureSkipVerify: true,
			Timeout:            45 * time.Second,
			PageSize:           200,
		},
		Check: Check{
			Enabled:                    false,
			Interval:                   10 * time.Minute,
			GracePeriod:                0,
			StuckAfter:                 0,
			Concurrency:                4,
			HangingConcurrency:         8,
			MaxFindingSeriesPerCluster: 20,
			IncludeProjects:            false,
			Shard:                      1,
			TotalShards:                3,
			NodeSource:                 NodeSourceKubernetesAPI,
		},
		SSH: SSH{
			User:           "core",
			PrivateKeyFile: "/etc/cks-drift-exporter/id_ed25519",
			KnownHostsFile: "testdata/known_hosts",
			HostKeyPolicy:  HostKeyStrict,
			Port:           2222,
			Timeout:        20 * time.Second,
			KubectlCommand: "kubectl --kubeconfig /etc/kubernetes/admin.conf get nodes -o name",
			MaxNodes:       250,
		},
		Notifier: Notifier{
			Enabled:                          false,
			Annotations:                      false,
			Alerts:                           false,
			MaxAlertsPerCycle:                0,
			MaxAnnotationsPerCluster:         3,
			MaxAnnouncementsPerClusterPerDay: 40,
			Concurrency:                      12,
			WebhookToken:                     "Okapi-Token-5531",
			WebhookTokenFile:                 "testdata/secrets/webhook-token",
			Mode:                             NotifierAlertmanager,
			AlertTypeMin:                     12000,
			AlertTypeMax:                     12999,
			FindingsURL:                      "https://exporter.example.com:9862/findings",
		},
		Storage:   Storage{Path: "/srv/cks-drift-exporter/state.db"},
		Inventory: Inventory{Source: SourceDatabase},
		Database: Database{
			DSN:             "reader:Db-Pass-Lynx-8812@tcp(db.example.com:3306)/cloud",
			DSNFile:         "testdata/secrets/db-dsn",
			MaxOpenConns:    4,
			MaxIdleConns:    2,
			ConnMaxLifetime: time.Minute,
			QueryTimeout:    10 * time.Second,
		},
		KubernetesAPI: KubernetesAPI{KubeconfigDir: "testdata/kubeconfigs", Timeout: 7 * time.Second},
		Events: Events{
			Webhook: EventsWebhook{Enabled: true, SecretKey: "Heron-Hook-Secret-4471", SecretKeyFile: "testdata/secrets/webhook-secret"},
			AMQP: EventsAMQP{URL: "amqps://rabbitmq.example.com:5671/cloud", Exchange: "cs-events", Username: "cks-drift",
				Password: "Rabbit-Pw-8812", PasswordFile: "testdata/secrets/amqp-password", CAFile: "testdata/amqp-ca.pem",
				CertFile: "testdata/amqp-client.pem", KeyFile: "testdata/amqp-client.key"},
			RecheckDelay:         5 * time.Second,
			MaxRechecksPerMinute: 30,
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load(good.yml) mismatch (-want +got):\n%s", diff)
	}
	// cmp prints secrets through String, so compare them directly too.
	if string(got.CloudStack.APIKey) != string(want.CloudStack.APIKey) ||
		string(got.CloudStack.SecretKey) != string(want.CloudStack.SecretKey) ||
		string(got.Notifier.WebhookToken) != string(want.Notifier.WebhookToken) {
		t.Errorf("secrets not read from their files with white space trimmed")
	}
}

func TestLoadMinimalTakesDefaults(t *testing.T) {
	t.Parallel()
	got, err := Load("testdata/minimal.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		CloudStack: CloudStack{
			Endpoint:  "http://localhost:8080/client/api",
			APIKey:    "inline-api-key",
			SecretKey: "inline-secret-key",
			Timeout:   30 * time.Second,
			PageSize:  500,
		},
		Check: Check{
			Enabled:                    true,
			Interval:                   5 * time.Minute,
			GracePeriod:                15 * time.Minute,
			StuckAfter:                 time.Hour,
			Concurrency:                16,
			HangingConcurrency:         32,
			MaxFindingSeriesPerCluster: 100,
			IncludeProjects:            true,
			TotalShards:                1,
			NodeSource:                 NodeSourceSSH,
		},
		SSH: SSH{
			User:           "cloud",
			PrivateKeyFile: "/var/lib/cloudstack/management/.ssh/id_rsa",
			HostKeyPolicy:  HostKeyPin,
			Timeout:        10 * time.Second,
			KubectlCommand: "sudo /opt/bin/kubectl get nodes --no-headers -o custom-columns=NAME:.metadata.name,VERSION:.status.nodeInfo.kubeletVersion --request-timeout=1s",
			MaxNodes:       1000,
		},
		Notifier: Notifier{
			Enabled:                          true,
			Annotations:                      true,
			Alerts:                           true,
			MaxAlertsPerCycle:                5,
			MaxAnnotationsPerCluster:         10,
			MaxAnnouncementsPerClusterPerDay: 100,
			Concurrency:                      8,
			Mode:                             NotifierDirect,
			AlertTypeMin:                     20000,
			AlertTypeMax:                     29999,
		},
		Storage:       Storage{Path: "/var/lib/cks-drift-exporter/state.db"},
		Inventory:     Inventory{Source: SourceAPI},
		Database:      Database{MaxOpenConns: 2, MaxIdleConns: 1, ConnMaxLifetime: 5 * time.Minute, QueryTimeout: 30 * time.Second},
		KubernetesAPI: KubernetesAPI{Timeout: 10 * time.Second},
		Events:        Events{AMQP: EventsAMQP{Exchange: "cloudstack-events"}, RecheckDelay: 2 * time.Second, MaxRechecksPerMinute: 120},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load(minimal.yml) mismatch (-want +got):\n%s", diff)
	}
}

func TestEmptySectionsKeepDefaults(t *testing.T) {
	t.Parallel()
	got, err := Parse([]byte(`
cloudstack: {endpoint: "https://cloud.example.com/client/api", api_key: k, secret_key: s}
check:
ssh: {}
notifier:
  enabled: false
`), "inline.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Check.Enabled || got.Check.Interval != 5*time.Minute || got.SSH.User != "cloud" {
		t.Errorf("empty sections lost their defaults: %+v %+v", got.Check, got.SSH)
	}
	if got.Notifier.Enabled || !got.Notifier.Alerts {
		t.Errorf("notifier = %+v, want only enabled switched off", got.Notifier)
	}
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/does-not-exist.yml")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load(missing) = %v, want an error wrapping fs.ErrNotExist", err)
	}
}

func TestDocumentMarkers(t *testing.T) {
	t.Parallel()
	const body = "cloudstack: {endpoint: \"http://a/b\", api_key: k, secret_key: s}\n"
	for _, file := range []string{"---\n" + body, body + "---\n", body + "...\n", "---\n" + body + "---\n# nothing\n"} {
		if _, err := Parse([]byte(file), "c.yml"); err != nil {
			t.Errorf("Parse(%q) = %v, want no error", file, err)
		}
	}
}
