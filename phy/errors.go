package phy

import (
	"errors"
	"fmt"
)

// ErrMalformedSelfID is the category of every error about a self-ID stream a
// consumer must reject, here and in package treeid: errors.Is(err,
// ErrMalformedSelfID) holds for all of them.
var ErrMalformedSelfID = errors.New("malformed self-ID")

// MalformedKind is one specific way a self-ID stream can be malformed. It
// unwraps to ErrMalformedSelfID, so errors.Is matches both the kind and its
// category; package treeid declares its kinds with it too.
type MalformedKind string

func (k MalformedKind) Error() string { return string(k) }

// Unwrap puts every kind in the ErrMalformedSelfID category.
func (k MalformedKind) Unwrap() error { return ErrMalformedSelfID }

var (
	// ErrInconsistentExtended reports a node whose packets do not form a
	// proper sequence: m set with no extended packet following, n out of
	// order, more than four packets, mixed phy_IDs, or a quadlet that is not
	// a self-ID at all (docs/protocol.md §9.3 item 1; Linux's message).
	ErrInconsistentExtended error = MalformedKind("inconsistent extended self IDs")

	// ErrBadInverse reports a PHY packet not followed by its bitwise inverse.
	ErrBadInverse = errors.New("bad inverse quadlet")

	// ErrInvalidField reports a value that does not fit its packet field.
	ErrInvalidField = errors.New("invalid field")
)

// SelfIDError locates a malformed self-ID in a stream, so that a capture can
// be checked by hand. errors.As gives the position; errors.Is matches Err and
// ErrMalformedSelfID.
type SelfIDError struct {
	Index   int    // position of the quadlet in the stream, inverse quadlets not counted
	Quadlet SelfID // the offending quadlet
	Node    int    // phy_ID of the node being read, -1 if unknown
	Err     error  // the specific kind, such as ErrInconsistentExtended
	Detail  string // what was wrong, for people
}

func (e *SelfIDError) Error() string {
	node := ""
	if e.Node >= 0 {
		node = fmt.Sprintf("node %d, ", e.Node)
	}
	msg := fmt.Sprintf("%sself-ID quadlet %d (0x%08x): %v", node, e.Index, uint32(e.Quadlet), e.Err)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *SelfIDError) Unwrap() error { return e.Err }

// checkField returns an ErrInvalidField error unless 0 ≤ v ≤ maxValue.
func checkField(name string, v, maxValue int) error {
	if v < 0 || v > maxValue {
		return fmt.Errorf("%w: %s %d, want 0–%d", ErrInvalidField, name, v, maxValue)
	}
	return nil
}
