package awsclient

import (
	"context"
	"fmt"
	"io"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// A response lost to the SDK's early close of the request body.
//
// net/http writes a request body on the connection's write goroutine: it
// copies ContentLength bytes, then copies the rest of the body to io.Discard
// to check that nothing is left over. The SDK closes the request body as soon
// as the response headers are in (smithy-go ClientHandler.Handle), and the
// body it hands net/http (smithy-go's safeReadCloser) answers WriteTo after
// Close with (0, io.EOF); io.Copy passes that on as an error, where a Read
// answering io.EOF would be a clean end. When the write goroutine is
// scheduled late, after the server has answered (CPU load, a fast server),
// that error makes net/http close the connection while the response body is
// still being read, and the call fails with "deserialization failed ... use
// of closed network connection" although the server answered 200. A
// GetMetricData request is billed all the same, so the exporter either drops
// what it paid for or, with retries, pays for it twice (aws-sdk-go-v2 #1825,
// #2737).
//
// keepRequestBodyReadable gives net/http a request body without WriteTo, so
// that the check after the copy reads through Read, which ends cleanly
// whether or not the SDK has closed the body yet.

// readOnly hides every method of a reader but Read.
type readOnly struct{ r io.Reader }

func (o readOnly) Read(p []byte) (int, error) { return o.r.Read(p) }

// keepRequestBodyReadable is the last Finalize middleware, so it runs on
// every attempt after signing and the retry loop's rewind, just before the
// request is sent; the request it changes is a copy.
func keepRequestBodyReadable(stack *middleware.Stack) error {
	return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("dynamodbExporterRequestBodyReadOnly",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			req, ok := in.Request.(*smithyhttp.Request)
			if !ok {
				return next.HandleFinalize(ctx, in)
			}
			stream := req.GetStream()
			if _, hasWriteTo := stream.(io.WriterTo); !hasWriteTo {
				return next.HandleFinalize(ctx, in)
			}
			cp, err := req.SetStream(readOnly{stream})
			if err != nil {
				return middleware.FinalizeOutput{}, middleware.Metadata{}, fmt.Errorf("wrapping the request body: %w", err)
			}
			in.Request = cp
			return next.HandleFinalize(ctx, in)
		}), middleware.After)
}
