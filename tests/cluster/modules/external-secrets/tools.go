//go:build tools

// Package tools pins the External Secrets Operator command this module
// builds: the module's root package (main.go).
package tools

import _ "github.com/external-secrets/external-secrets"
