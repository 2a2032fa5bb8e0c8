package awssim

import (
	"errors"
	"net/http"
	"net/url"
)

// protocol is the wire protocol of one request.
type protocol int

const (
	protoJSON10 protocol = iota // DynamoDB
	protoJSON11                 // Application Auto Scaling
	protoCBOR                   // CloudWatch (Smithy RPC v2 CBOR)
	protoQuery                  // STS (AWS query)
)

// call is one request in flight.
type call struct {
	srv     *Server
	r       *http.Request
	body    []byte
	form    url.Values
	service string
	op      string
	proto   protocol

	region   string
	identity Identity

	queryUnsupported bool
	// reset cuts the answer mid-body (Fault.Reset).
	reset bool
	// edit rewrites the answer before it is encoded (Fault.Edit).
	edit func(map[string]any)
	rec  RequestRecord
}

// admit runs the IAM deny list and the injected faults for this request. A
// handler calls it once it has decoded which tables and resource the request
// is about, and before it touches any state.
func (c *call) admit(resourceARN string, tables ...string) error {
	c.rec.Tables = append(c.rec.Tables[:0], tables...)
	action := c.service + ":" + c.op
	if c.srv.faults.denied(action) {
		return accessDenied(c.identity.ARN, action, resourceARN)
	}
	edit, err := c.srv.faults.apply(c.r.Context(), c.service, c.op, c.region, tables)
	c.edit = edit
	if errors.Is(err, errResetMidBody) {
		c.reset = true
		return nil
	}
	return err
}
