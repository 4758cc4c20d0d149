package world

// Info is world.json, which cks-drift-benchfake writes once everything serves: what the
// benchmark driver needs to know about the running world.
type Info struct {
	Endpoint   string    `json:"endpoint"`
	APIKey     string    `json:"api_key"`
	SecretKey  string    `json:"secret_key"`
	KeyFile    string    `json:"key_file"`
	ConfigFile string    `json:"config_file"`
	StatsURL   string    `json:"stats_url"`
	PID        int       `json:"pid"`
	Spec       SpecJSON  `json:"spec"`
	Counts     Counts    `json:"counts"`
	Clusters   []Cluster `json:"clusters"`
	BuildTime  float64   `json:"build_seconds"`
}

// SpecJSON is a Spec with durations in seconds.
type SpecJSON struct {
	Clusters     int     `json:"clusters"`
	StrayVMs     int     `json:"stray_vms"`
	ProjectShare float64 `json:"project_share"`
	HangShare    float64 `json:"hang_share"`
	Latency      float64 `json:"latency_seconds"`
	Handshake    float64 `json:"handshake_seconds"`
	DriftShare   float64 `json:"drift_share"`
}

// Stats is the answer of the fake's /bench/stats: counters since it started.
type Stats struct {
	API      map[string]int `json:"api"`
	APITotal int            `json:"api_total"`
	APIBytes int64          `json:"api_bytes"` // bytes of the API's answer bodies
	SSH      SSHStats       `json:"ssh"`
	VmHWMKiB int64          `json:"vmhwm_kib"`
}
