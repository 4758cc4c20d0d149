// Package deploytest checks the Helm chart in deploy/helm offline: helm lint and helm template
// with several value sets, the rendered manifests decoded strictly with the Kubernetes and
// Prometheus operator API types, the PrometheusRule through promtool, and the chart's rules and
// dashboards against the repository's. A module of its own, so that the main module does not
// carry the API types.
package deploytest
