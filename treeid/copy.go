package treeid

// CopyFrom sets e to src's state: the election of a PHY of the same
// configuration, whose bus goes on from a state saved earlier (a
// bus.Snapshot). e keeps its random source, chooser and peer UIDs (the
// bus copies what they hold) and its own buffers; nothing of src is
// shared. The trail is set by the next Begin or Step, as always.
func (e *Election) CopyFrom(src *Election) {
	rng, chooser, peers, rounds := e.cfg.Rand, e.cfg.Chooser, e.cfg.PeerUIDs, e.rounds
	*e = *src
	e.cfg.Rand, e.cfg.Chooser, e.cfg.PeerUIDs = rng, chooser, peers
	e.rounds = append(rounds[:0], src.rounds...)
	e.trail = nil
}
