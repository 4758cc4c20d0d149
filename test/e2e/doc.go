// Package e2e runs the exporter against a real Prometheus and Alertmanager with the shipped
// rules, dashboards and example configurations; its tests need the Debian packages prometheus
// and prometheus-alertmanager.
package e2e
