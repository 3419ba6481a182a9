//go:build tools

// Package tools pins the prometheus-operator command this module builds.
package tools

import _ "github.com/prometheus-operator/prometheus-operator/cmd/operator"
