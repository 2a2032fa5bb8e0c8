package ttl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// A synthetic table for coverage tests: items grouped in partition keys of
// very unequal sizes, keys hashed into scan segments, and each key's items
// sharing one class (the strongly clustered case: one tenant, one code path).
type population struct {
	items    int64
	keySizes []int64
}

// newPopulation draws partition keys until the table holds about total
// items. Key sizes are a mixture: 60% of keys hold 1–4 items, 30% hold
// 5–40, 9% hold 41–200; with heavy, the last 1% hold 201–1000 items
// (a quarter of the table), else they too hold 41–200.
func newPopulation(rng *rand.Rand, total int64, heavy bool) *population {
	p := &population{}
	for p.items < total {
		var size int64
		switch u := rng.Float64(); {
		case !heavy && u < 0.70:
			size = 1 + rng.Int64N(4)
		case !heavy && u < 0.95:
			size = 5 + rng.Int64N(16)
		case !heavy:
			size = 21 + rng.Int64N(40)
		case u < 0.60:
			size = 1 + rng.Int64N(4)
		case u < 0.90:
			size = 5 + rng.Int64N(36)
		case u < 0.99:
			size = 41 + rng.Int64N(160)
		default:
			size = 201 + rng.Int64N(800)
		}
		size = min(size, total-p.items)
		p.keySizes = append(p.keySizes, size)
		p.items += size
	}
	return p
}

// assign puts whole keys, in random order, into the class until the class
// holds about target of the items; it returns the per-key flags and the true
// fraction.
func (p *population) assign(rng *rand.Rand, target float64) ([]bool, float64) {
	in := make([]bool, len(p.keySizes))
	goal := int64(math.Round(target * float64(p.items)))
	var got int64
	for _, key := range rng.Perm(len(p.keySizes)) {
		if got >= goal*98/100 {
			break
		}
		if got+p.keySizes[key] <= goal*102/100 {
			in[key] = true
			got += p.keySizes[key]
		}
	}
	return in, float64(got) / float64(p.items)
}

// segments hashes every key into one of n segments and tallies the items:
// class Expired for keys flagged in, Live otherwise.
func (p *population) segments(n int, in []bool) []SegmentCounts {
	segs := make([]SegmentCounts, n)
	for i := range segs {
		segs[i].Segment = i
	}
	for key, size := range p.keySizes {
		seg := &segs[splitmix64(uint64(key))%uint64(n)]
		c := Live
		if in[key] {
			c = Expired
		}
		seg.Items += size
		seg.ByClass[c] += size
	}
	return segs
}

// splitmix64 stands in for DynamoDB's partition-key hash.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// coverage is the outcome of repeated sampling.
type coverage struct {
	runs, covered, itemsCovered, zeroHits, zeroHitsCovered int
	relErr                                                 []float64
	width                                                  []float64
	deff                                                   []float64
	items                                                  []float64
}

func (c *coverage) rate() float64 { return float64(c.covered) / float64(c.runs) }

func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// simulate draws runs samples of k of the segments and estimates the
// Expired fraction each time.
func simulate(t *testing.T, rng *rand.Rand, segs []SegmentCounts, k int, tableItems int64, truth float64, runs int) *coverage {
	t.Helper()
	n := len(segs)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	sample := Sample{TotalSegments: n, TableItems: tableItems, Segments: make([]SegmentCounts, k)}
	trueItems := truth * float64(sumItems(segs))
	c := &coverage{}
	for range runs {
		for i := range k { // partial Fisher–Yates: a uniform k-subset
			j := i + rng.IntN(n-i)
			perm[i], perm[j] = perm[j], perm[i]
			sample.Segments[i] = segs[perm[i]]
		}
		est, err := sample.Estimate(SetOf(Expired))
		if err == ErrEmptySample {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		c.runs++
		in := est.FractionLower <= truth && truth <= est.FractionUpper
		if in {
			c.covered++
		}
		if est.ItemsLower <= trueItems && trueItems <= est.ItemsUpper {
			c.itemsCovered++
		}
		if est.SampleHits == 0 {
			c.zeroHits++
			if in {
				c.zeroHitsCovered++
			}
		}
		c.relErr = append(c.relErr, math.Abs(est.Fraction-truth)/truth)
		c.width = append(c.width, est.FractionUpper-est.FractionLower)
		c.deff = append(c.deff, est.DesignEffect)
		c.items = append(c.items, float64(est.SampleItems))
	}
	return c
}

func sumItems(segs []SegmentCounts) int64 {
	var n int64
	for _, s := range segs {
		n += s.Items
	}
	return n
}

// TestCoverageClustered measures the empirical coverage of the 95% interval
// on strongly clustered data (the class is assigned per partition key) by
// repeating "pick k random segments, estimate" 1,000 times per scenario.
//
// Results at the default budget (Plan: 150 of 20,000 segments, ~1,500
// items), seed as below, "typical" population (200,000 items in ~29,000
// keys of 1–60 items, size-weighted mean key size 20); fraction coverage and
// relative error |p̂−p|/p:
//
//	p = 20%:  coverage 0.968, relative error median 0.17, p95 0.45
//	p = 3%:   coverage 0.970, relative error median 0.44, p95 1.16
//	p = 0.1%: coverage 1.000; 76% of samples have zero hits, all covered
//	          thanks to the worst-case design effect (upper bound then ~7%).
//
// Where it is weaker: with few large segments (8 segments of 200 items)
// coverage for 3% drops to ~0.935. On the "heavy" population (1% of keys
// hold 201–1000 items, a quarter of the table; size-weighted mean key size
// ~235, so a 1,500-item sample holds only a handful of effective keys)
// coverage stays 0.94–0.97 but the relative error is ~0.5 (20%) to ~0.9
// (3%) at the median: the interval is honest, the sample too small. Without
// the Satterthwaite degrees of freedom (plain Korn–Graubard on k−1 df) the
// 3% coverage was 0.83–0.87. The bounds asserted are derived from the
// Monte Carlo error around a claimed floor (coverageFloor), over several seeds.
func TestCoverageClustered(t *testing.T) {
	const (
		tableItems = 200_000
		runs       = 1000
	)
	// Several independent seeds, so that no bound is fitted to one random
	// draw of populations and samples.
	seeds := []uint64{20240501, 1, 2, 3}
	type design struct {
		name string
		n, k int
	}
	defaultN, defaultK, _ := Plan(tableItems, DefaultSampleItems, DefaultItemsPerSegment)
	designs := []design{
		{"default (10 items/segment)", defaultN, defaultK},
		{"coarse (100 items/segment)", 2000, 15},
		{"very coarse (200 items/segment)", 1000, 8},
	}
	// pooled accumulates one case's outcomes over every seed.
	type pooled struct {
		runs, covered, itemsCovered int
		floor                       float64
		relErr                      []float64
	}
	cases := map[string]*pooled{}
	var order []string
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 7))
		for _, heavy := range []bool{false, true} {
			pop := newPopulation(rng, tableItems, heavy)
			var sq float64
			for _, s := range pop.keySizes {
				sq += float64(s * s)
			}
			t.Logf("seed %d population heavy=%v: %d items in %d partition keys; size-weighted mean key size %.0f",
				seed, heavy, pop.items, len(pop.keySizes), sq/float64(pop.items))
			for _, target := range []float64{0.20, 0.03, 0.001} {
				in, truth := pop.assign(rng, target)
				for di, d := range designs {
					if heavy && di == 2 {
						continue // keep the test fast; see the doc comment
					}
					segs := pop.segments(d.n, in)
					for _, known := range []int64{pop.items, 0} {
						if known == 0 && di > 0 {
							continue
						}
						c := simulate(t, rng, segs, d.k, known, truth, runs)
						t.Logf("seed %d p=%.4f %-32s itemcount known=%-5v cover=%.3f items cover=%.3f zero-hit runs=%d (covered %d) relerr med=%.2f p95=%.2f width med=%.4f deff med=%.1f items read med=%.0f",
							seed, truth, d.name, known > 0, c.rate(), float64(c.itemsCovered)/float64(c.runs), c.zeroHits, c.zeroHitsCovered,
							quantile(c.relErr, 0.5), quantile(c.relErr, 0.95), quantile(c.width, 0.5), quantile(c.deff, 0.5), quantile(c.items, 0.5))
						key := fmt.Sprintf("target=%v %s heavy=%v itemcount known=%v", target, d.name, heavy, known > 0)
						p := cases[key]
						if p == nil {
							p = &pooled{floor: coverageFloor(heavy, di)}
							cases[key] = p
							order = append(order, key)
						}
						p.runs += c.runs
						p.covered += c.covered
						p.itemsCovered += c.itemsCovered
						// One seed: the claimed floor less four Monte Carlo
						// standard errors of a rate measured on c.runs runs.
						if lo := p.floor - 4*mcStdErr(p.floor, c.runs); c.rate() < lo {
							t.Errorf("seed %d %s: fraction coverage %.3f < %.3f", seed, key, c.rate(), lo)
						}
						p.relErr = append(p.relErr, c.relErr...)
						if c.zeroHitsCovered != c.zeroHits {
							t.Errorf("seed %d p=%.4f %s: %d of %d zero-hit samples missed the truth", seed, truth, d.name, c.zeroHits-c.zeroHitsCovered, c.zeroHits)
						}
					}
				}
			}
		}
	}
	// Over every seed: the claimed floor less three standard errors of the
	// pooled rate (about 0.01 on 4,000 runs).
	for _, key := range order {
		p := cases[key]
		rate, items := float64(p.covered)/float64(p.runs), float64(p.itemsCovered)/float64(p.runs)
		lo := p.floor - 3*mcStdErr(p.floor, p.runs)
		t.Logf("pooled %s: %d runs, fraction coverage %.3f, item-count coverage %.3f (floor %.2f, bound %.3f)", key, p.runs, rate, items, p.floor, lo)
		if rate < lo {
			t.Errorf("pooled %s: fraction coverage %.3f < %.3f", key, rate, lo)
		}
		if items < lo {
			t.Errorf("pooled %s: item-count coverage %.3f < %.3f", key, items, lo)
		}
		// The error bound docs/ttl.md states at the default budget (typical
		// clustering, item count known), over every seed: p95 relative
		// error <= 0.5 for a 20% class and <= 1.4 for a 3% class.
		if strings.HasPrefix(key, "target=0.2 default") || strings.HasPrefix(key, "target=0.03 default") {
			if !strings.HasSuffix(key, "heavy=false itemcount known=true") {
				continue
			}
			bound := 0.5
			if strings.HasPrefix(key, "target=0.03") {
				bound = 1.4
			}
			med, p95 := quantile(p.relErr, 0.5), quantile(p.relErr, 0.95)
			t.Logf("pooled %s: relative error median %.2f, p95 %.2f (bound %.2f)", key, med, p95, bound)
			if p95 > bound {
				t.Errorf("pooled %s: p95 relative error %.2f above the bound docs/ttl.md states %.2f", key, p95, bound)
			}
		}
	}
}

// coverageFloor is the coverage the 95% interval is claimed to reach (see
// TestCoverageClustered's doc comment): 0.94 at the default design on
// typical clustering, where the method's approximations cost about a point;
// 0.92 for coarse segments (few segments, so few degrees of freedom) and for
// heavy clustering (a handful of effective keys per sample).
func coverageFloor(heavy bool, design int) float64 {
	if heavy || design > 0 {
		return 0.92
	}
	return 0.94
}

// mcStdErr is the Monte Carlo standard error of a rate p measured on n
// independent runs.
func mcStdErr(p float64, n int) float64 { return math.Sqrt(p * (1 - p) / float64(n)) }
