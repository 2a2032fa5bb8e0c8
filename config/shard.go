package config

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is this replica's share of the tables when several replicas split
// an estate: replica Index of Count (0 <= Index < Count). The zero value
// (Count 0) means unsharded: one replica polls every table.
//
// Each table belongs to exactly one shard, chosen by rendezvous hashing of
// its identity (account name, region, table name): every shard scores the
// table and the highest score wins. The assignment depends on nothing but
// the table's identity and Count, so tables coming and going never move
// other tables, and changing Count from n to n+1 moves only the tables the
// new shard wins, about 1/(n+1) of them.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n" (for example "0/3": the first of three replicas).
// Every error quotes the value.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("%q is not a shard: write INDEX/COUNT, such as 0/3 (the first of three replicas, indexes from 0)", s)
	}
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("%q is not a shard: INDEX and COUNT must be whole numbers, such as 0/3", s)
	}
	sh := Shard{Index: index, Count: count}
	if err := sh.check(); err != nil {
		return Shard{}, fmt.Errorf("%q: %w", s, err)
	}
	return sh, nil
}

func (s Shard) check() error {
	switch {
	case s.Count < 1 || s.Count > MaxShards:
		return fmt.Errorf("the shard count must be between 1 and %d, got %d", MaxShards, s.Count)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("the shard index must be between 0 and %d (indexes start at 0), got %d", s.Count-1, s.Index)
	}
	return nil
}

// MaxShards bounds the shard count.
const MaxShards = 1024

// Sharded reports whether the tables are split between several replicas.
func (s Shard) Sharded() bool { return s.Count > 1 }

// String returns "i/n", or "" when unsharded.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Owns reports whether this shard polls the table.
func (s Shard) Owns(account, region, table string) bool {
	return s.Count <= 1 || ShardOf(account, region, table, s.Count) == s.Index
}

// ShardOf returns the index, in [0, count), of the shard that polls the
// table among count shards.
func ShardOf(account, region, table string, count int) int {
	best, bestScore := 0, uint64(0)
	for i := range count {
		h := fnv.New64a()
		// NUL cannot occur in any of the parts: the separators keep
		// ("a","bc") and ("ab","c") apart.
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d", account, region, table, i)
		if score := mix(h.Sum64()); i == 0 || score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// mix is the SplitMix64 finaliser: FNV-1a alone spreads inputs that differ
// in their last byte (the shard number) poorly across the high bits.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
