package hwtest

import "strings"

// parseRaw reads FormatRaw: blank lines separate bus resets.
func parseRaw(ls []string) ([]*Generation, error) {
	var gens []*Generation
	var qs []uint32
	start := 0
	flush := func() error {
		if len(qs) == 0 {
			return nil
		}
		g := newGeneration(FormatRaw, start)
		if err := g.addPairs(qs); err != nil {
			return err
		}
		gens = append(gens, g)
		qs = nil
		return nil
	}
	for n, l := range ls {
		if strings.TrimSpace(l) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		for _, tok := range hexTokens(l) {
			q, err := parseQuadlet(tok)
			if err != nil {
				return nil, &ParseError{Format: FormatRaw, Line: n + 1, Field: "quadlet", Reason: err.Error()}
			}
			if len(qs) == 0 {
				start = n + 1
			}
			qs = append(qs, q)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return gens, nil
}
