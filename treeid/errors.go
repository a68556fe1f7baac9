package treeid

import "github.com/fwsim/fwsim/phy"

// The ways Build rejects a self-ID stream, after the Linux build_tree checks
// (docs/protocol.md §9.3). Each is a phy.MalformedKind, so errors.Is matches it and
// phy.ErrMalformedSelfID; Build returns them inside a *phy.SelfIDError that
// names the node, the quadlet index and the quadlet.
var (
	ErrNoSelfIDs               error = phy.MalformedKind("no self-ID packets")
	ErrTooManyNodes            error = phy.MalformedKind("more than 63 nodes")
	ErrPhyIDMismatch           error = phy.MalformedKind("PHY ID mismatch")
	ErrStackUnderflow          error = phy.MalformedKind("topology stack underflow")
	ErrParentPortInconsistency error = phy.MalformedKind("parent port inconsistency")
	ErrUnattachedSubtrees      error = phy.MalformedKind("subtrees left without a parent")
)
