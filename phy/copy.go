package phy

// CopyFrom sets m to src's state: a PHY of the same configuration, whose
// bus goes on from a state saved earlier (a bus.Snapshot). m keeps its
// tree identifier, whose state the bus copies itself, and its own
// buffers; nothing of src is shared.
func (m *Machine) CopyFrom(src *Machine) {
	tree, ports, identified, transmit, selfIDBuf, trail := m.cfg.TreeID, m.ports, m.identified, m.transmit, m.selfIDBuf, m.trail.states
	*m = *src
	m.cfg.TreeID = tree
	m.ports = Ports{
		Connected: append(ports.Connected[:0], src.ports.Connected...),
		Rx:        append(ports.Rx[:0], src.ports.Rx...),
		Tx:        append(ports.Tx[:0], src.ports.Tx...),
		Status:    append(ports.Status[:0], src.ports.Status...),
	}
	m.identified = append(identified[:0], src.identified...)
	m.transmit = append(transmit[:0], src.transmit...)
	m.selfIDBuf = append(selfIDBuf[:0], src.selfIDBuf...)
	m.trail.states = append(trail[:0], src.trail.states...)
}
