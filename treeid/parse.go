package treeid

import "fmt"

// ParsePolicy reads a Policy's name, as String writes it: coin or
// larger-id-wins.
func ParsePolicy(name string) (Policy, error) {
	for _, p := range []Policy{Coin, LargerIDWins} {
		if p.String() == name {
			return p, nil
		}
	}
	return Coin, fmt.Errorf("policy %q: want %s or %s", name, Coin, LargerIDWins)
}

// ParseCorner reads a Corner's name, as String writes it: random, min or
// max.
func ParseCorner(name string) (Corner, error) {
	for _, c := range []Corner{CornerRandom, CornerMin, CornerMax} {
		if c.String() == name {
			return c, nil
		}
	}
	return CornerRandom, fmt.Errorf("corner %q: want %s, %s or %s", name, CornerRandom, CornerMin, CornerMax)
}
