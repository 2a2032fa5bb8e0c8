package exposition

import (
	"bytes"
	"compress/flate"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// allKeys are every cached format, identity and gzip.
var allKeys = func() []cacheKey {
	var keys []cacheKey
	for _, f := range []expfmt.Format{expfmt.FmtText, expfmt.FmtOpenMetrics_1_0_0, expfmt.FmtOpenMetrics_0_0_1, expfmt.FmtProtoDelim} {
		keys = append(keys, cacheKey{f, false}, cacheKey{f, true})
	}
	return keys
}()

// wholeSegments encodes snap as one gather of it would, family by family:
// each family's segment by name.
func wholeSegments(t *testing.T, snap []prometheus.Metric, key cacheKey) map[string]piece {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := reg.Register(uncheckedCollector{snapsCollector{snap}}); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]piece{}
	for _, mf := range mfs {
		var plain bytes.Buffer
		if err := expfmt.NewEncoder(&plain, key.format).Encode(mf); err != nil {
			t.Fatal(err)
		}
		p := piece{first: mf.GetName(), b: plain.Bytes()}
		if key.gzip {
			var z bytes.Buffer
			fw, _ := flate.NewWriter(&z, bulkCompression)
			_, _ = fw.Write(plain.Bytes())
			_ = fw.Flush()
			p = piece{first: mf.GetName(), b: z.Bytes(), crc: crc32.ChecksumIEEE(plain.Bytes()), size: uint32(plain.Len())}
		}
		out[mf.GetName()] = p
	}
	return out
}

// segmentsOf returns the segments of en by family name, failing on a
// family in two segments.
func segmentsOf(t *testing.T, en *encoded) map[string]piece {
	t.Helper()
	out := map[string]piece{}
	start := 0
	for _, sg := range en.segs {
		if _, dup := out[sg.first]; dup {
			t.Errorf("family %s in two segments", sg.first)
		}
		out[sg.first] = piece{first: sg.first, b: en.buf[start:sg.end], crc: sg.crc, size: sg.size}
		start = sg.end
	}
	if start != len(en.buf) {
		t.Errorf("segments end at %d of %d bytes", start, len(en.buf))
	}
	return out
}

// Encoded a family at a time, a snapshot gives every family the segment a
// gather of the whole snapshot gives it, in every format: families in any
// order in the snapshot, and one spread over two descriptors of the same
// name (merged, as one gather merges it).
func TestEncodeSnapSameAsWholeGather(t *testing.T) {
	snap := bigSnapshot(20)
	// Interleave the families, as a part over several collectors does.
	snap = append(snap[len(snap)/2:], snap[:len(snap)/2]...)
	twin := prometheus.NewDesc(catalogue.ExporterTables, lookup(t, catalogue.ExporterTables).Help, lookup(t, catalogue.ExporterTables).Labels, nil)
	snap = append(snap,
		catalogue.MustMetric(catalogue.ExporterTables, 3, "acct", "us-east-1"),
		prometheus.MustNewConstMetric(twin, prometheus.GaugeValue, 4, "acct", "eu-west-1"),
		catalogue.MustMetric(catalogue.ExporterTables, 5, "acct", "ap-south-1"))
	for i, en := range encodeSnap(snap, allKeys, nil) {
		key := allKeys[i]
		if en.err != nil {
			t.Fatalf("%v: %v", key, en.err)
		}
		got, want := segmentsOf(t, en), wholeSegments(t, snap, key)
		if len(got) != len(want) {
			t.Errorf("%v: %d families, want %d", key, len(got), len(want))
		}
		for name, w := range want {
			g, ok := got[name]
			if !ok {
				t.Errorf("%v: no segment for %s", key, name)
				continue
			}
			if !bytes.Equal(g.b, w.b) || g.crc != w.crc || g.size != w.size {
				t.Errorf("%v: %s differs from one gather's:\n got %q (crc %08x, %d bytes)\nwant %q (crc %08x, %d bytes)", key, name, g.b, g.crc, g.size, w.b, w.crc, w.size)
			}
		}
	}
}

func lookup(t *testing.T, name string) catalogue.Family {
	t.Helper()
	f, ok := catalogue.Lookup(name)
	if !ok {
		t.Fatalf("no family %s", name)
	}
	return f
}

// A snapshot that one gather rejects is rejected encoded a family at a
// time, in every format: inconsistent across families (a gauge named as a
// histogram's count), or within one (a series twice).
func TestEncodeSnapRejectsWhatAGatherRejects(t *testing.T) {
	collide := prometheus.NewDesc(catalogue.TTLLiveItemRemainingLifetime+"_count", "Collides with the histogram's count.", nil, nil)
	for _, tc := range []struct {
		name string
		snap []prometheus.Metric
		want string
	}{
		{"a gauge named as a histogram's count", []prometheus.Metric{
			catalogue.MustMetric(catalogue.ExporterTables, 2, "acct", "us-east-1"),
			catalogue.MustHistogram(catalogue.TTLLiveItemRemainingLifetime, 1, 2, map[float64]uint64{10: 1}, "acct", "us-east-1", "orders"),
			prometheus.MustNewConstMetric(collide, prometheus.GaugeValue, 1),
		}, "collides"},
		{"a series twice", []prometheus.Metric{
			catalogue.MustMetric(catalogue.ExporterTables, 2, "acct", "us-east-1"),
			catalogue.MustMetric(catalogue.TableInfo, 1, "acct", "us-east-1", "orders", "PROVISIONED", "STANDARD", "ACTIVE"),
			catalogue.MustMetric(catalogue.TableInfo, 1, "acct", "us-east-1", "orders", "PROVISIONED", "STANDARD", "ACTIVE"),
		}, "collected before"},
	} {
		_, err := gather(tc.snap)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: one gather: %v, want an error containing %q", tc.name, err, tc.want)
		}
		for i, en := range encodeSnap(tc.snap, allKeys, nil) {
			if en.err == nil || !strings.Contains(en.err.Error(), tc.want) {
				t.Errorf("%s, %v: %v, want an error containing %q", tc.name, allKeys[i], en.err, tc.want)
			}
		}
	}
}

// byDesc keeps every metric, each in its descriptor's group, the groups
// in order of first appearance and each in the snapshot's order.
func TestByDesc(t *testing.T) {
	a := catalogue.MustMetric(catalogue.ExporterTables, 1, "acct", "r1")
	b := catalogue.MustMetric(catalogue.TableInfo, 1, "acct", "r1", "t", "PROVISIONED", "STANDARD", "ACTIVE")
	c := catalogue.MustMetric(catalogue.ExporterTables, 2, "acct", "r2")
	d := catalogue.MustMetric(catalogue.ExporterTables, 3, "acct", "r3")
	groups := byDesc([]prometheus.Metric{a, b, c, d})
	if len(groups) != 2 || len(groups[0]) != 3 || len(groups[1]) != 1 ||
		groups[0][0] != a || groups[0][1] != c || groups[0][2] != d || groups[1][0] != b {
		t.Errorf("groups %v, want [[a c d] [b]]", groups)
	}
	if len(byDesc(nil)) != 0 {
		t.Error("groups of an empty snapshot")
	}
}

// tight copies a body whose array has more than an eighth to spare, and
// only then: a generation keeps its bodies.
func TestTight(t *testing.T) {
	body := []byte(strings.Repeat("dynamodb_items 1\n", 100))
	for _, tc := range []struct {
		spare int
		copy  bool
	}{{0, false}, {len(body) / 16, false}, {len(body)/8 + 1, true}, {len(body), true}} {
		b := append(make([]byte, 0, len(body)+tc.spare), body...)
		got := tight(b)
		if !bytes.Equal(got, body) || cap(got) != len(body) {
			t.Errorf("spare %d: %d bytes, capacity %d; want the body, capacity %d", tc.spare, len(got), cap(got), len(body))
		}
		if copied := &got[0] != &b[0]; copied != tc.copy {
			t.Errorf("spare %d: copied %v, want %v", tc.spare, copied, tc.copy)
		}
	}
}
