package awssim

import (
	"crypto/sha256"
	"encoding/hex"
)

// stableUUID derives a version-4-shaped UUID from seed, so that IDs and ARNs
// are identical on every run.
func stableUUID(seed string) string {
	h := sha256.Sum256([]byte(seed))
	x := hex.EncodeToString(h[:16])
	return x[0:8] + "-" + x[8:12] + "-4" + x[13:16] + "-8" + x[17:20] + "-" + x[20:32]
}
