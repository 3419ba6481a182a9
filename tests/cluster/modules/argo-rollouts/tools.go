//go:build tools

// Package tools pins the Argo Rollouts commands this module builds: the
// controller, and the kubectl plugin the tests take as ground truth.
package tools

import (
	_ "github.com/argoproj/argo-rollouts/cmd/kubectl-argo-rollouts"
	_ "github.com/argoproj/argo-rollouts/cmd/rollouts-controller"
)
