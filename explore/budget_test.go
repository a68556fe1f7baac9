package explore

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// A step function's probabilities order as their fractions do: in words,
// past them, and between the two.
func TestProbOrdersAsFractions(t *testing.T) {
	huge := new(big.Int).Lsh(big.NewInt(1), 80)
	rats := []*big.Rat{
		big.NewRat(0, 1), big.NewRat(1, 1), big.NewRat(1, 2), big.NewRat(2, 4), big.NewRat(477, 512),
		big.NewRat(31965, 32768), new(big.Rat).SetFrac(huge, new(big.Int).Add(huge, big.NewInt(1))),
		new(big.Rat).SetFrac(big.NewInt(1), huge), new(big.Rat).SetFrac(new(big.Int).Sub(huge, big.NewInt(1)), huge),
		new(big.Rat).SetFrac64(1<<62, (1<<62)+1), new(big.Rat).SetFrac64((1<<62)+1, (1<<62)+3),
	}
	for _, x := range rats {
		for _, y := range rats {
			require.Equal(t, x.Cmp(y), newProb(x).cmp(newProb(y)), "%v against %v", x, y)
		}
	}
}
