package awssim

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"hash/crc32"
	"net/http"
	"reflect"
	"strconv"

	"github.com/fxamacker/cbor/v2"
)

// response is a fully encoded HTTP answer.
type response struct {
	status  int
	header  http.Header
	body    []byte
	errCode string
}

// encodeResponse encodes out (or err) in the protocol of c.
func encodeResponse(s *Server, c *call, out any, err error) response {
	if err != nil {
		return encodeError(c, s.asAPIError(err))
	}
	if c.edit != nil {
		edited, eerr := editOutput(c, out)
		if eerr != nil {
			return encodeError(c, s.asAPIError(fmt.Errorf("edit %s %s response: %w", c.service, c.op, eerr)))
		}
		out = edited
	}
	var (
		body []byte
		ct   string
		eerr error
	)
	switch c.proto {
	case protoJSON10, protoJSON11:
		ct = jsonContentType(c.proto)
		if out == nil {
			out = struct{}{}
		}
		body, eerr = json.Marshal(out)
	case protoCBOR:
		ct = "application/cbor"
		body, eerr = cborEnc.Marshal(out)
	case protoQuery:
		ct = "text/xml"
		body, eerr = encodeQueryResult(c.op, out)
	}
	if eerr != nil {
		return encodeError(c, s.asAPIError(fmt.Errorf("encode %s %s response: %w", c.service, c.op, eerr)))
	}
	return finishResponse(c, http.StatusOK, ct, body, "")
}

// encodeError encodes e in the protocol of c.
func encodeError(c *call, e *apiError) response {
	w := wireError(c.service, c.proto, e.kind)
	switch c.proto {
	case protoJSON10, protoJSON11:
		msgKey := "message"
		if c.proto == protoJSON11 {
			msgKey = "Message"
		}
		body, _ := json.Marshal(map[string]string{"__type": w.typ, msgKey: e.msg})
		return finishResponse(c, w.status, jsonContentType(c.proto), body, w.query)
	case protoCBOR:
		body, _ := cborEnc.Marshal(map[string]string{"__type": w.typ, "message": e.msg})
		resp := finishResponse(c, w.status, "application/cbor", body, w.query)
		fault := "Sender"
		if w.status >= 500 {
			fault = "Receiver"
		}
		resp.header.Set("X-Amzn-Query-Error", w.query+";"+fault)
		return resp
	}
	fault := "Sender"
	if w.status >= 500 {
		fault = "Receiver"
	}
	body := encodeQueryError(fault, w.query, e.msg)
	return finishResponse(c, w.status, "text/xml", body, w.query)
}

// finishResponse adds the headers every protocol sends.
func finishResponse(c *call, status int, ct string, body []byte, code string) response {
	h := http.Header{}
	h.Set("Content-Type", ct)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	switch c.proto {
	case protoCBOR:
		h.Set("Smithy-Protocol", "rpc-v2-cbor")
	case protoJSON10:
		if c.service == ServiceDynamoDB {
			h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
		}
	}
	return response{status: status, header: h, body: body, errCode: code}
}

func jsonContentType(p protocol) string {
	if p == protoJSON11 {
		return "application/x-amz-json-1.1"
	}
	return "application/x-amz-json-1.0"
}

// encodeQueryResult wraps out (an XML-marshalable <OpResult>) in <OpResponse>.
func encodeQueryResult(op string, out any) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<%sResponse xmlns="%s">`, op, stsXMLNS)
	if out != nil {
		inner, err := xml.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("marshal %s result: %w", op, err)
		}
		b.Write(inner)
	}
	fmt.Fprintf(&b, `<ResponseMetadata><RequestId>00000000-0000-4000-8000-000000000000</RequestId></ResponseMetadata></%sResponse>`, op)
	return b.Bytes(), nil
}

// encodeQueryError renders an AWS query-protocol <ErrorResponse>.
func encodeQueryError(fault, code, msg string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<ErrorResponse xmlns="%s"><Error><Type>%s</Type><Code>%s</Code><Message>`, stsXMLNS, fault, code)
	_ = xml.EscapeText(&b, []byte(msg))
	b.WriteString(`</Message></Error><RequestId>00000000-0000-4000-8000-000000000000</RequestId></ErrorResponse>`)
	return b.Bytes()
}

// cborEditDec decodes an answer for Fault.Edit: maps as map[string]any,
// timestamps (tag 1) as time.Time.
var cborEditDec = func() cbor.DecMode {
	dm, err := cbor.DecOptions{
		DefaultMapType: reflect.TypeOf(map[string]any{}),
		TimeTag:        cbor.DecTagRequired,
	}.DecMode()
	if err != nil {
		panic(fmt.Sprintf("awssim: cbor edit decoder options: %v", err))
	}
	return dm
}()

// editOutput turns out into a generic document in c's protocol, runs
// c.edit on it and returns the document to encode instead.
func editOutput(c *call, out any) (any, error) {
	doc := map[string]any{}
	switch c.proto {
	case protoCBOR:
		raw, err := cborEnc.Marshal(out)
		if err != nil {
			return nil, err
		}
		if err := cborEditDec.Unmarshal(raw, &doc); err != nil {
			return nil, err
		}
	default:
		if out == nil {
			out = struct{}{}
		}
		raw, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, err
		}
	}
	c.edit(doc)
	return doc, nil
}
