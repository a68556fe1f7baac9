package hwtest

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/phy"
)

func TestParseUSBTarget(t *testing.T) {
	for _, tc := range []struct {
		in       string
		vid, pid uint16
		ep       int
		bad      bool
	}{
		{in: "0451:9001", vid: 0x0451, pid: 0x9001, ep: 1},
		{in: "0x0451:0x9001,2", vid: 0x0451, pid: 0x9001, ep: 2},
		{in: "1d50:6018,15", vid: 0x1d50, pid: 0x6018, ep: 15},
		{in: "0451", bad: true},
		{in: "0451:zz", bad: true},
		{in: "10000:1", bad: true},
		{in: "0451:9001,0", bad: true},
		{in: "0451:9001,x", bad: true},
	} {
		vid, pid, ep, err := ParseUSBTarget(tc.in)
		if tc.bad {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, []int{int(tc.vid), int(tc.pid), tc.ep}, []int{int(vid), int(pid), ep}, tc.in)
	}
}

// usbStream renders generations in the capture device format.
func usbStream(gens ...[]phy.SelfID) []byte {
	var b []byte
	for i, g := range gens {
		b = binary.BigEndian.AppendUint32(b, 0xffffffff)
		b = binary.BigEndian.AppendUint32(b, 0xffffffff)
		b = binary.BigEndian.AppendUint32(b, uint32(i+1))
		for _, q := range g {
			b = binary.BigEndian.AppendUint32(b, uint32(q))
			b = binary.BigEndian.AppendUint32(b, ^uint32(q))
		}
	}
	return b
}

func TestParseUSBStream(t *testing.T) {
	data := usbStream(labBus(63), labBus(10))
	gens, err := ParseUSBStream(append(data, 0x80, 0x00)) // a partial quadlet at the end is ignored
	require.NoError(t, err)
	require.Len(t, gens, 2)
	assert.Equal(t, labBus(63), gens[0].SelfIDs)
	assert.Equal(t, labBus(10), gens[1].SelfIDs)
	assert.Equal(t, []int{1, 2}, []int{gens[0].Number, gens[1].Number})
	assert.Empty(t, gens[0].Problems)

	data[3*4+4] ^= 0x01 // corrupt the first inverse
	gens, err = ParseUSBStream(data)
	require.NoError(t, err)
	require.Len(t, gens[0].Problems, 1)
	assert.Equal(t, "inverse", gens[0].Problems[0].Check)

	_, err = ParseUSBStream(data[12:])
	assert.ErrorIs(t, err, ErrCapture, "the stream must start at a marker")
	_, err = ParseUSBStream(data[:8])
	assert.ErrorIs(t, err, ErrCapture, "a marker without its generation")
}

// fakeStream hands out its data in chunks, then blocks until ctx ends.
type fakeStream struct {
	chunks [][]byte
	err    error
}

func (s *fakeStream) Read(ctx context.Context, buf []byte) (int, error) {
	if len(s.chunks) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		<-ctx.Done()
		return 0, ctx.Err()
	}
	n := copy(buf, s.chunks[0])
	s.chunks = s.chunks[1:]
	return n, nil
}

func (s *fakeStream) Close() error { return nil }

func TestReadUSBCapture(t *testing.T) {
	data := usbStream(labBus(63))
	s := &fakeStream{chunks: [][]byte{data[:10], data[10:]}}
	gens, err := ReadUSBCapture(context.Background(), s, 20*time.Millisecond)
	require.NoError(t, err)
	require.Len(t, gens, 1)
	assert.Equal(t, labBus(63), gens[0].SelfIDs, "quadlets split across transfers are joined")

	_, err = ReadUSBCapture(context.Background(), &fakeStream{}, time.Millisecond)
	assert.ErrorContains(t, err, "sent nothing")

	gens, err = ReadUSBCapture(context.Background(), &fakeStream{chunks: [][]byte{data}, err: io.EOF}, time.Second)
	require.NoError(t, err, "EOF ends the capture")
	assert.Len(t, gens, 1)

	broken := errors.New("device unplugged")
	_, err = ReadUSBCapture(context.Background(), &fakeStream{chunks: [][]byte{data}, err: broken}, time.Second)
	assert.ErrorIs(t, err, broken)
}

func TestOpenUSB(t *testing.T) {
	host, err := OpenUSB()
	if err != nil { // built without the gousb tag
		assert.ErrorIs(t, err, ErrNoUSB)
		assert.Contains(t, err.Error(), "-tags gousb")
		return
	}
	defer host.Close()
	devs, err := host.List()
	require.NoError(t, err)
	t.Logf("%d USB devices attached", len(devs))
	_, err = host.Open(0xffff, 0xfffe, 1) // no such device
	assert.ErrorContains(t, err, "ffff:fffe")
}
