package awssim

import (
	"fmt"

	"github.com/fxamacker/cbor/v2"
)

// cborPathPrefix is the RPC v2 CBOR path of CloudWatch operations.
const cborPathPrefix = "/service/GraniteServiceVersion20100801/operation/"

// cborEnc encodes responses as the smithy RPC v2 CBOR deserializer expects:
// timestamps as tag 1 (epoch seconds, integer or float), definite lengths.
var cborEnc = func() cbor.EncMode {
	em, err := cbor.EncOptions{
		Time:    cbor.TimeUnixDynamic,
		TimeTag: cbor.EncTagRequired,
	}.EncMode()
	if err != nil {
		panic(fmt.Sprintf("awssim: cbor encoder options: %v", err))
	}
	return em
}()

// cborDec decodes requests; unknown members are ignored, as a service does.
var cborDec = func() cbor.DecMode {
	dm, err := cbor.DecOptions{}.DecMode()
	if err != nil {
		panic(fmt.Sprintf("awssim: cbor decoder options: %v", err))
	}
	return dm
}()

// decodeCBOR decodes an RPC v2 CBOR request body into in; an empty body is
// an empty input.
func (c *call) decodeCBOR(in any) error {
	if ct := c.r.Header.Get("Smithy-Protocol"); ct != "rpc-v2-cbor" {
		return apiErr(ErrValidation, "awssim: missing header smithy-protocol: rpc-v2-cbor")
	}
	if len(c.body) == 0 {
		return nil
	}
	if err := cborDec.Unmarshal(c.body, in); err != nil {
		return apiErr(ErrValidation, fmt.Sprintf("Unable to parse the %s request body", c.op))
	}
	return nil
}
