package hwtest

// rawParser reads FormatRaw, and FormatFireSpy with another reader of
// quadlets: blank lines separate bus resets.
type rawParser struct {
	emit   func(*Generation) error
	format Format
	// read appends the quadlets of line n.
	read func(qs []uint32, l string, n int) ([]uint32, error)
	qs   []uint32 // the current bus reset's quadlets, inverses included
	// start is the line of its first quadlet, over that of its quadlet
	// number maxSelfIDs+1, which is one too many unless inverses come
	// with them.
	start, over int
}

func (p *rawParser) line(n int, l string) error {
	if isBlank(l) {
		return p.flush()
	}
	before := len(p.qs)
	var err error
	if p.qs, err = p.read(p.qs, l, n); err != nil {
		return err
	}
	switch {
	case len(p.qs) > 2*maxSelfIDs:
		return sizeError(p.format, n)
	case before == 0 && len(p.qs) > 0:
		p.start = n
	}
	if before <= maxSelfIDs && len(p.qs) > maxSelfIDs {
		p.over = n
	}
	return nil
}

// flush hands on the bus reset read so far: only now, with all its
// quadlets, can it be told whether they come with inverses.
func (p *rawParser) flush() error {
	if len(p.qs) == 0 {
		return nil
	}
	g := newGeneration(p.format, p.start)
	if err := g.addPairs(p.qs); err != nil {
		return err
	}
	if len(g.SelfIDs) > maxSelfIDs {
		return sizeError(p.format, p.over)
	}
	p.qs = p.qs[:0]
	return p.emit(g)
}

func (p *rawParser) end() error { return p.flush() }
