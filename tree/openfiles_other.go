//go:build !unix

package tree

// openBudget is how many rewritten files an in-place prune keeps open.
func openBudget() int { return 16 }
