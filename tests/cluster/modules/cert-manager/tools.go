//go:build tools

// Package tools pins the cert-manager command this module builds.
package tools

import _ "github.com/cert-manager/cert-manager/cmd/controller"
