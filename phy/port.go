package phy

import "fmt"

// PortStatus is a port's role as a self-ID packet reports it (docs/protocol.md §9.1): the
// two-bit code is the value itself.
type PortStatus uint8

// Port status codes.
const (
	PortAbsent       PortStatus = 0 // 00: no such port on this PHY
	PortNotConnected PortStatus = 1 // 01: present but not connected
	PortParent       PortStatus = 2 // 10: connected to the parent
	PortChild        PortStatus = 3 // 11: connected to a child
)

// String gives the names the JSON output uses: "absent", "ncon", "parent",
// "child".
func (p PortStatus) String() string {
	switch p {
	case PortAbsent:
		return "absent"
	case PortNotConnected:
		return "ncon"
	case PortParent:
		return "parent"
	case PortChild:
		return "child"
	}
	return fmt.Sprintf("PortStatus(%d)", uint8(p))
}

// Speed is a PHY's maximum signalling speed, as coded in the self-ID sp field.
type Speed uint8

// Speed codes (docs/protocol.md §9.1). S800 is the 1394b "beta" code 11.
const (
	S100 Speed = 0
	S200 Speed = 1
	S400 Speed = 2
	S800 Speed = 3
)

// String gives the conventional name ("S400").
func (s Speed) String() string {
	switch s {
	case S100:
		return "S100"
	case S200:
		return "S200"
	case S400:
		return "S400"
	case S800:
		return "S800"
	}
	return fmt.Sprintf("Speed(%d)", uint8(s))
}

// ParseSpeed reads "S100", "S200", "S400" or "S800".
func ParseSpeed(s string) (Speed, error) {
	for sp := S100; sp <= S800; sp++ {
		if sp.String() == s {
			return sp, nil
		}
	}
	return 0, fmt.Errorf("unknown speed %q (want S100, S200, S400 or S800)", s)
}
