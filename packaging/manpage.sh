#!/bin/sh
# The manual page of cks-drift-exporter (section 1) on stdout: kingpin's --help-man, with the
# header that man and lintian expect (kingpin's title line carries the multi-line --version
# text) and a whatis line in NAME. Usage: manpage.sh BINARY VERSION DATE
set -e
"$1" --help-man | awk -v version="$2" -v date="$3" '
  !started && $0 != ".SH \"NAME\"" { next }
  !started {
    started = 1
    printf ".TH CKS-DRIFT-EXPORTER 1 \"%s\" \"cks-drift-exporter %s\" \"User Commands\"\n", date, version
    print
    print "cks-drift-exporter \\- Prometheus exporter for VM map drift of CloudStack Kubernetes clusters"
    getline # kingpin writes the bare name here
    next
  }
  { print }'
