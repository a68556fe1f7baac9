// Package layers holds the house's import rules, and no code: its test
// reads the table of packages, layers and allowed imports in
// docs/architecture.md and fails when a package imports a package the
// table does not allow it, when the table lets a package import a layer
// above its own, or when a package and the table disagree on what exists.
// The table is the one place that says where a package sits; a new package
// gets its row there, in the same change.
package layers
