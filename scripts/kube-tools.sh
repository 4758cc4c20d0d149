#!/usr/bin/env bash
# Builds the real Kubernetes control plane the tests run against (internal/testkit/controlplanetest)
# into build/: etcd from tools/etcd, kube-apiserver, kube-controller-manager and kubectl from
# tools/kube, at the versions those modules pin, and copies the prometheus-operator CRDs the
# chart's dry runs need (deploy/test) into build/prometheus-operator-crd/. It is done once per
# version: build/kube-tools.stamp holds a hash of both modules' go.mod and go.sum, of this script
# and of the Go release, and a later run that finds the same hash and every file does nothing.
# The first build is long (kube-apiserver alone is about 16 minutes of CPU and 2.4 GB of memory).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
out=${KUBE_TOOLS_DIR:-build}
bins=(etcd kube-apiserver kube-controller-manager kubectl)
# The ServiceMonitor and PrometheusRule CRDs ship in the operator's module; the Go module proxy
# serves v0.85.0.
operator=github.com/prometheus-operator/prometheus-operator@v0.85.0
crds=(monitoring.coreos.com_servicemonitors.yaml monitoring.coreos.com_prometheusrules.yaml)

# The Kubernetes release is the one tools/kube requires; its version packages are stamped with
# it, as the release build does, because kube-apiserver derives its API compatibility version
# from it.
kube_version=$($GO -C tools/kube list -m -f '{{.Version}}' k8s.io/kubernetes)
[[ $kube_version =~ ^v([0-9]+)\.([0-9]+)\.[0-9]+$ ]] || { echo "kube-tools: k8s.io/kubernetes $kube_version in tools/kube is not a release" >&2; exit 1; }
major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}

stamp=$(cat tools/etcd/go.mod tools/etcd/go.sum tools/kube/go.mod tools/kube/go.sum "$0" <($GO version) | sha256sum | cut -d' ' -f1)
have=true
for f in "${bins[@]}" "${crds[@]/#/prometheus-operator-crd/}"; do [ -e "$out/$f" ] || have=false; done
if $have && [ "$(cat "$out/kube-tools.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "kube-tools: $out has etcd, Kubernetes $kube_version and the CRDs of ${operator#*@}"
  exit 0
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/kube-tools.stamp"
ldflags="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $p.gitVersion=$kube_version -X $p.gitMajor=$major -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
done

echo "kube-tools: building etcd"
$GO -C tools/etcd build -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3
for b in kube-apiserver kube-controller-manager kubectl; do
  echo "kube-tools: building $b $kube_version"
  $GO -C tools/kube build -ldflags "$ldflags" -o "$out/$b" "k8s.io/kubernetes/cmd/$b"
done

echo "kube-tools: CRDs of $operator"
dir=$($GO mod download -json "$operator" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] || { echo "kube-tools: go mod download $operator gave no directory" >&2; exit 1; }
mkdir -p "$out/prometheus-operator-crd"
for c in "${crds[@]}"; do cp "$dir/example/prometheus-operator-crd/$c" "$out/prometheus-operator-crd/"; done
chmod -R u+w "$out/prometheus-operator-crd"
echo "$stamp" > "$out/kube-tools.stamp"
