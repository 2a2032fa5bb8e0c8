package config

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"0/1": {0, 1}, "2/3": {2, 3}, " 0/3 ": {0, 3}} {
		got, err := ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"3":    `"3" is not a shard: write INDEX/COUNT`,
		"a/3":  `"a/3" is not a shard: INDEX and COUNT must be whole numbers`,
		"3/3":  `"3/3": the shard index must be between 0 and 2 (indexes start at 0), got 3`,
		"-1/3": `"-1/3": the shard index must be between 0 and 2`,
		"0/0":  `"0/0": the shard count must be between 1 and 1024, got 0`,
		"1/-2": `"1/-2": the shard count must be between 1 and 1024, got -2`,
	} {
		_, err := ParseShard(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseShard(%q) error %v; want it to contain %s", in, err, want)
		}
	}
}

func TestShardInConfig(t *testing.T) {
	c, err := Parse([]byte("shard: 1/4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Shard != (Shard{1, 4}) || !c.Shard.Sharded() {
		t.Fatalf("shard = %+v", c.Shard)
	}
	if c := Default(); c.Shard.Sharded() || !c.Shard.Owns("a", "us-east-1", "t") {
		t.Fatalf("default shard %+v does not own every table", c.Shard)
	}
	_, err = Parse([]byte("shard: [1, 4]\n"))
	if err == nil || !strings.Contains(err.Error(), `shard (line 1): expected a shard such as "0/3"`) {
		t.Fatalf("list accepted as a shard or error names no key: %v", err)
	}
}

// TestShardAssignment: every table has exactly one owner, the shards are
// about even, and going from n to n+1 shards moves only tables to the new
// shard, about 1/(n+1) of them.
func TestShardAssignment(t *testing.T) {
	const tables = 20000
	name := func(i int) (string, string, string) {
		return []string{"prod", "staging"}[i%2], []string{"us-east-1", "eu-west-1", "ap-south-1"}[i%3], fmt.Sprintf("table-%d", i)
	}
	for n := 1; n <= 8; n++ {
		counts := make([]int, n)
		moved := 0
		for i := range tables {
			a, r, tb := name(i)
			owner := ShardOf(a, r, tb, n)
			owners := 0
			for k := range n {
				if (Shard{k, n}).Owns(a, r, tb) {
					owners++
				}
			}
			if owners != 1 || !(Shard{owner, n}).Owns(a, r, tb) {
				t.Fatalf("n=%d: %s/%s/%s has %d owners", n, a, r, tb, owners)
			}
			counts[owner]++
			if n > 1 {
				if prev := ShardOf(a, r, tb, n-1); prev != owner {
					if owner != n-1 {
						t.Fatalf("%d->%d shards: %s moved from shard %d to %d, not to the new shard", n-1, n, tb, prev, owner)
					}
					moved++
				}
			}
		}
		even := float64(tables) / float64(n)
		for k, c := range counts {
			if d := float64(c)/even - 1; d > 0.05 || d < -0.05 {
				t.Errorf("n=%d: shard %d owns %d tables, %.1f%% off an even %.0f", n, k, c, 100*d, even)
			}
		}
		if n > 1 {
			share := float64(moved) / tables
			if want := 1 / float64(n); share < want*0.9 || share > want*1.1 {
				t.Errorf("%d->%d shards moved %.3f of the tables, want about %.3f", n-1, n, share, want)
			}
			t.Logf("%d->%d shards: %.1f%% of %d tables moved (ideal %.1f%%)", n-1, n, 100*share, tables, 100/float64(n))
		}
	}
	// The identity includes the account and region: the same table name
	// elsewhere is placed independently.
	same := 0
	for i := range 3000 {
		tb := fmt.Sprintf("t%d", i)
		if ShardOf("a", "us-east-1", tb, 3) == ShardOf("b", "us-east-1", tb, 3) {
			same++
		}
	}
	if same > 1200 || same < 800 {
		t.Errorf("same name in two accounts on the same shard %d of 3000 times, want about 1000", same)
	}
}
