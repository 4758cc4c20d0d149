// Package examples holds example configurations of Prometheus, Alertmanager, Grafana and the
// exporter; its tests check them with promtool, amtool and the exporter's own loader.
package examples
