//go:build linux && (amd64 || arm64)

package hwtest

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// The kernel checks no access mode for the firewire-cdev ioctls: the probe
// opens read-only, so read access is enough. A read-only sysfs attribute
// refuses a read-write open even to root.
func TestOpenDeviceNeedsOnlyReadAccess(t *testing.T) {
	const readOnly = "/sys/devices/system/cpu/online"
	if _, err := os.Stat(readOnly); err != nil {
		t.Skipf("%s: %v", readOnly, err)
	}
	dev, err := OpenDevice(readOnly)
	require.NoError(t, err)
	require.NoError(t, dev.Close())
}
