package awssim

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"hash/crc32"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// fuzzProtocols are the request shapes FuzzRequestDecoders sends garbage in:
// each simulated service's own protocol, and one no service speaks.
var fuzzProtocols = []struct {
	service string
	ops     []string
}{
	{ServiceDynamoDB, slices.Sorted(maps.Keys(dynamoHandlers))},
	{ServiceAutoScaling, slices.Sorted(maps.Keys(autoScalingHandlers))},
	{ServiceCloudWatch, slices.Sorted(maps.Keys(cloudWatchHandlers))},
	{ServiceSTS, slices.Sorted(maps.Keys(stsHandlers))},
	{serviceUnknown, []string{""}},
}

// fuzzRequest builds a signed-looking request of protocol p for operation
// op (an index into its operations; past the end, an operation no service
// has) with body as its payload.
func fuzzRequest(p, op int, body []byte) (*http.Request, string, string) {
	proto := fuzzProtocols[p]
	name := "NoSuchOperation"
	if op < len(proto.ops) {
		name = proto.ops[op]
	}
	scope := signingName(proto.service)
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	switch proto.service {
	case ServiceDynamoDB:
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810."+name)
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	case ServiceAutoScaling:
		r.Header.Set("X-Amz-Target", "AnyScaleFrontendService."+name)
		r.Header.Set("Content-Type", "application/x-amz-json-1.1")
	case ServiceCloudWatch:
		r = httptest.NewRequest(http.MethodPost, cborPathPrefix+name, bytes.NewReader(body))
		r.Header.Set("Smithy-Protocol", "rpc-v2-cbor")
		r.Header.Set("Content-Type", "application/cbor")
	case ServiceSTS:
		form := "Action=" + name + "&Version=" + stsVersion + "&" + string(body)
		r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(form))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	default:
		r.Header.Set("Content-Type", "application/octet-stream")
		scope = "dynamodb"
	}
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDFUZZ/20250312/us-east-1/"+scope+
		"/aws4_request, SignedHeaders=host;x-amz-date, Signature=0")
	return r, proto.service, name
}

// FuzzRequestDecoders sends garbage payloads, signed as a real client
// would, to every operation of every simulated service, and to no service at
// all, on the fixture account. As AWS does, the simulated endpoint must
// answer each with a client error (4xx, never a 5xx or a panic) in the
// service's own wire shape, which the SDK decodes into an error code and
// message: AWS JSON's __type and message, RPC v2 CBOR's __type, message and
// X-Amzn-Query-Error, the query protocol's ErrorResponse; or, when the
// garbage happens to be a valid request, a 200 answer the protocol parses.
func FuzzRequestDecoders(f *testing.F) {
	for p, proto := range fuzzProtocols {
		for op := range proto.ops {
			for _, body := range [][]byte{nil, []byte("{}"), []byte(`{"TableName":"orders"}`), []byte("\xa0"),
				[]byte(`{"TableName":`), []byte(`[1,2]`), []byte(`{"Limit":-1,"ExclusiveStartTableName":""}`),
				{0xbf, 0x69, 'N', 'a', 'm', 'e', 's', 'p', 'a', 'c', 'e', 0x01, 0xff}, []byte("RoleArn=x&RoleSessionName=%zz")} {
				f.Add(uint8(p), uint8(op), body)
			}
		}
	}
	f.Fuzz(func(t *testing.T, p, op uint8, body []byte) {
		// A fresh fixture per input: the writes of one do not leak into the next.
		s := NewFixture(clock.NewManual(t0))
		r, service, name := fuzzRequest(int(p)%len(fuzzProtocols), int(op), body)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		res := w.Result()
		got := w.Body.Bytes()
		if res.Header.Get("X-Amzn-Requestid") == "" {
			t.Errorf("%s %s: no request ID", service, name)
		}
		if res.StatusCode == http.StatusOK {
			checkParses(t, service, name, res.Header, got)
			return
		}
		if res.StatusCode < 400 || res.StatusCode > 499 {
			t.Fatalf("%s %s: status %d for a client's malformed request, want 4xx; body %q", service, name, res.StatusCode, got)
		}
		checkErrorShape(t, service, name, res.Header, got)
	})
}

// checkParses asserts that a success answer is well-formed in its protocol.
func checkParses(t *testing.T, service, op string, h http.Header, body []byte) {
	t.Helper()
	var err error
	switch service {
	case ServiceDynamoDB, ServiceAutoScaling:
		var v map[string]any
		err = json.Unmarshal(body, &v)
	case ServiceCloudWatch:
		var v map[string]any
		err = cborDec.Unmarshal(body, &v)
	case ServiceSTS:
		err = xml.Unmarshal(body, new(struct{ XMLName xml.Name }))
	default:
		t.Fatalf("a request no service speaks was answered 200: %q", body)
	}
	if err != nil {
		t.Fatalf("%s %s: 200 answer does not parse: %v; body %q", service, op, err, body)
	}
}

// checkErrorShape asserts that an error answer has the wire shape of its
// service's protocol, from which the SDK reads the error code and message.
func checkErrorShape(t *testing.T, service, op string, h http.Header, body []byte) {
	t.Helper()
	switch service {
	case ServiceDynamoDB, ServiceAutoScaling, serviceUnknown:
		ct, msgKey := "application/x-amz-json-1.0", "message"
		if service == ServiceAutoScaling {
			ct, msgKey = "application/x-amz-json-1.1", "Message"
		}
		if h.Get("Content-Type") != ct {
			t.Fatalf("%s %s: error with Content-Type %q, want %s", service, op, h.Get("Content-Type"), ct)
		}
		var v map[string]string
		if err := json.Unmarshal(body, &v); err != nil || v["__type"] == "" || v[msgKey] == "" {
			t.Fatalf("%s %s: error body is not {__type, %s}: %v; body %q", service, op, msgKey, err, body)
		}
		if service == ServiceDynamoDB && h.Get("X-Amz-Crc32") != strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10) {
			t.Fatalf("%s %s: X-Amz-Crc32 %q does not match the body", service, op, h.Get("X-Amz-Crc32"))
		}
	case ServiceCloudWatch:
		var v map[string]string
		if err := cborDec.Unmarshal(body, &v); err != nil || v["__type"] == "" || v["message"] == "" {
			t.Fatalf("%s %s: error body is not CBOR {__type, message}: %v; body %q", service, op, err, body)
		}
		if h.Get("Smithy-Protocol") != "rpc-v2-cbor" {
			t.Fatalf("%s %s: error without Smithy-Protocol: rpc-v2-cbor", service, op)
		}
		code, fault, ok := strings.Cut(h.Get("X-Amzn-Query-Error"), ";")
		if !ok || code == "" || fault != "Sender" {
			t.Fatalf("%s %s: X-Amzn-Query-Error %q, want CODE;Sender", service, op, h.Get("X-Amzn-Query-Error"))
		}
	case ServiceSTS:
		var v struct {
			XMLName xml.Name `xml:"ErrorResponse"`
			Error   struct{ Type, Code, Message string }
		}
		if err := xml.Unmarshal(body, &v); err != nil || v.Error.Type != "Sender" || v.Error.Code == "" || v.Error.Message == "" {
			t.Fatalf("%s %s: error body is not an ErrorResponse from the Sender: %v; body %q", service, op, err, body)
		}
	}
}
