package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMulticastReportsMembersAndGuarantees(t *testing.T) {
	code, stdout, stderr := runCLI(t, "multicast", "--algo", "ack", "--gen", "ring:4", "--messages", "3")
	require.Equal(t, exitOK, code, stderr)
	// Three members, each delivering the three messages: 3·3 DATA, 3·3 ACK.
	assert.Contains(t, stdout, "messages: 18 (DATA 9, RETRANS 0, ACK 9), 0 lost\n")
	assert.Equal(t, 3, strings.Count(stdout, "    3          3         0           -        -\n"), stdout)
	assert.Contains(t, stdout, "in order, once each: held\n")
	assert.Contains(t, stdout, "every live member delivered the whole stream: held\n")
}

// nack without the stop signal misses the tail on this seed: exit 1, and
// the same run with --stop holds.
func TestMulticastTailLossExitsOne(t *testing.T) {
	args := []string{"multicast", "--algo", "nack", "--gen", "ring:5", "--messages", "5", "--loss", "0.3", "--seed", "1"}
	code, stdout, stderr := runCLI(t, args...)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, "VIOLATED, n2 misses 1 of 5 messages, from 5")
	assert.Equal(t, "fwsim multicast: nack broke a guarantee: every live member delivered the whole stream: n2 misses 1 of 5 messages, from 5\n", stderr)
	code, _, stderr = runCLI(t, append(args, "--stop")...)
	assert.Equal(t, exitOK, code, stderr)
}

func TestMulticastSenderCrashIsNoViolation(t *testing.T) {
	code, stdout, stderr := runCLI(t, "multicast", "--algo", "nack", "--gen", "ring:4", "--messages", "4", "--crash", "n0@1.5", "--json")
	require.Equal(t, exitOK, code, stderr)
	var out multicastJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	require.Len(t, out.Guarantees, 2)
	assert.False(t, out.Guarantees[1].Promised)
	for _, m := range out.Members {
		assert.Equal(t, 2, m.Delivered, "messages 1 and 2 left before the crash at 1.5: %s", m.Node)
		assert.Equal(t, []int{3, 4}, m.Missing)
	}
}

func TestMulticastSameSeedSameBytes(t *testing.T) {
	args := []string{"multicast", "--algo", "nack", "--gen", "ring:6", "--messages", "20", "--loss", "0.4", "--stop", "--trace", "--seed", "7"}
	_, a, _ := runCLI(t, args...)
	_, b, _ := runCLI(t, args...)
	assert.Equal(t, a, b)
}

func TestMulticastBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--gen", "ring:4"}, "fwsim multicast: want --algo NAME (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "gossip", "--gen", "ring:4"}, "fwsim multicast: unknown multicast algorithm \"gossip\" (want ack, nack, srm, vsync)\n"},
		{[]string{"--algo", "ack", "--loss", "0.7"}, "fwsim multicast: invalid value \"0.7\" for flag --loss: want a probability from 0 to 0.5, e.g. 0.2 (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "ack", "--loss", "NaN"}, "fwsim multicast: invalid value \"NaN\" for flag --loss: want a probability from 0 to 0.5, e.g. 0.2 (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "ack", "--messages", "0"}, "fwsim multicast: invalid value \"0\" for flag --messages: want a whole number from 1 to 1000 (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "ack", "--crash", "n1"}, "fwsim multicast: --crash n1: want NODE@TIME, e.g. n3@2.5 (see 'fwsim help multicast')\n"},
		{[]string{"--algo", "ack", "--stop"}, "fwsim multicast: bad multicast options: the stop signal is for nack and srm\n"},
		{[]string{"--algo", "ack", "--gen", "ring:4", "--crash", "n9@1"}, "fwsim multicast: bad multicast options: crashed node \"n9\" is not on the bus\n"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"multicast"}, c.args...)...)
		assert.Equal(t, exitUsage, code, "%v", c.args)
		assert.Empty(t, stdout)
		assert.Equal(t, c.want, stderr, "%v", c.args)
	}
}

// srm's report says what suppression spared, as its JSON does; the others
// have no such line.
func TestMulticastSRMReportsSuppression(t *testing.T) {
	args := []string{"multicast", "--algo", "srm", "--gen", "ring:8", "--messages", "20", "--loss", "0.2", "--stop"}
	code, text, stderr := runCLI(t, args...)
	require.Equal(t, exitOK, code, stderr)
	_, stdout, _ := runCLI(t, append(args, "--json")...)
	var out multicastJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	assert.Positive(t, out.RepairsSpared)
	assert.Contains(t, text, fmt.Sprintf("suppression: %d NACKs spared (losses repaired on another's NACK), %d repairs spared\n",
		out.NACKsSpared, out.RepairsSpared))
	_, text, _ = runCLI(t, "multicast", "--algo", "nack", "--gen", "ring:8", "--messages", "20", "--loss", "0.2", "--stop")
	assert.NotContains(t, text, "suppression")
}
