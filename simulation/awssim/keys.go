package awssim

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/bits"
	"strconv"
	"strings"
)

// DynamoDB's key size limits.
const (
	maxPartitionKeyBytes = 2048
	maxSortKeyBytes      = 1024
)

// msgKeySchema is DynamoDB's answer to a Key that does not match the table's
// key schema (missing, extra or mistyped attributes).
const msgKeySchema = "The provided key element does not match the schema"

// keySchema is a table's primary key: a partition (HASH) key and an
// optional sort (RANGE) key, with their scalar types (S, N or B).
type keySchema struct {
	hash, hashType string
	rng, rngType   string // rng is "" without a sort key
}

// schemaOf reads the primary key of t. A key attribute without an
// attribute definition is taken to be a String.
func schemaOf(t *Table) keySchema {
	var ks keySchema
	defs := make(map[string]string, len(t.AttributeDefinitions))
	for _, d := range t.AttributeDefinitions {
		defs[d.AttributeName] = d.AttributeType
	}
	typ := func(name string) string {
		if ty := defs[name]; ty != "" {
			return ty
		}
		return "S"
	}
	for _, k := range t.KeySchema {
		switch k.KeyType {
		case "HASH":
			ks.hash, ks.hashType = k.AttributeName, typ(k.AttributeName)
		case "RANGE":
			ks.rng, ks.rngType = k.AttributeName, typ(k.AttributeName)
		}
	}
	return ks
}

// equal reports whether two schemas describe the same primary key.
// names returns the key attribute names, partition key first.
func (ks keySchema) names() []string {
	if ks.rng == "" {
		return []string{ks.hash}
	}
	return []string{ks.hash, ks.rng}
}

// checkItemKey validates the key attributes of an item being written, with
// the messages of PutItem: they name the attribute and its types, never the
// value.
func (ks keySchema) checkItemKey(it item) error {
	for _, name := range ks.names() {
		want := ks.hashType
		limit, what := maxPartitionKeyBytes, "hashkey"
		if name == ks.rng {
			want, limit, what = ks.rngType, maxSortKeyBytes, "rangekey"
		}
		v, ok := it[name]
		if !ok {
			return apiErr(ErrValidation, "One or more parameter values were invalid: Missing the key "+name+" in the item")
		}
		if v.kind.String() != want {
			return apiErr(ErrValidation, fmt.Sprintf("One or more parameter values were invalid: Type mismatch for key %s expected: %s actual: %s", name, want, v.kind))
		}
		if err := checkKeyValue(name, v, limit, what); err != nil {
			return err
		}
	}
	return nil
}

// checkKeyValue applies DynamoDB's rules for the value of a key attribute:
// not empty and within the size limit.
func checkKeyValue(name string, v attrValue, limit int, what string) error {
	var n int
	switch v.kind {
	case kindS:
		if v.str == "" {
			return apiErr(ErrValidation, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: "+name)
		}
		n = len(v.str)
	case kindB:
		if len(v.bin) == 0 {
			return apiErr(ErrValidation, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: "+name)
		}
		n = len(v.bin)
	}
	if n > limit {
		return apiErr(ErrValidation, fmt.Sprintf("One or more parameter values were invalid: Size of %s has exceeded the maximum size limit of%d bytes", what, limit))
	}
	return nil
}

// checkKey validates a Key parameter (GetItem, DeleteItem, a DeleteRequest)
// or, when startKey is set, an ExclusiveStartKey: exactly the key
// attributes, with their types.
func (ks keySchema) checkKey(key item, startKey bool) (item, error) {
	key, err := normalizeItem(key)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if startKey {
		prefix = "The provided starting key is invalid: "
	}
	names := ks.names()
	if len(key) != len(names) {
		if startKey {
			return nil, apiErr(ErrValidation, "Exclusive Start Key must have same size as table's key schema")
		}
		return nil, apiErr(ErrValidation, msgKeySchema)
	}
	for _, name := range names {
		want := ks.hashType
		limit, what := maxPartitionKeyBytes, "hashkey"
		if name == ks.rng {
			want, limit, what = ks.rngType, maxSortKeyBytes, "rangekey"
		}
		v, ok := key[name]
		if !ok || v.kind.String() != want {
			return nil, apiErr(ErrValidation, prefix+msgKeySchema)
		}
		if err := checkKeyValue(name, v, limit, what); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// primaryKey is the position of an item in the table: the hash of its
// partition key value, the encoded partition key, and its sort key value.
type primaryKey struct {
	id    string // unique identity: encoded partition key + encoded sort key
	hash  uint64 // of the partition key value; orders partitions
	pk    string // encoded partition key value
	sk    attrValue
	skNum decNumber // sort key of type N, parsed
}

// keyOf extracts the primary key of a validated item or key.
func (ks keySchema) keyOf(it item) primaryKey {
	pk := encodeKeyValue(it[ks.hash])
	k := primaryKey{id: pk, hash: partitionHash(pk), pk: pk}
	if ks.rng != "" {
		k.sk = it[ks.rng]
		k.id += "|" + encodeKeyValue(k.sk)
		if k.sk.kind == kindN {
			k.skNum, _ = parseDecNumber(k.sk.str)
		}
	}
	return k
}

// keyItem returns the key attributes of it.
func (ks keySchema) keyItem(it item) item {
	out := item{ks.hash: it[ks.hash]}
	if ks.rng != "" {
		out[ks.rng] = it[ks.rng]
	}
	return out
}

// encodeKeyValue is an unambiguous encoding of a scalar key value: type,
// length, bytes. Numbers are in normal form, so equal numbers encode alike.
func encodeKeyValue(v attrValue) string {
	var s string
	switch v.kind {
	case kindS, kindN:
		s = v.str
	case kindB:
		s = string(v.bin)
	}
	return v.kind.String() + strconv.Itoa(len(s)) + ":" + s
}

// partitionHash spreads partition key values over the 64-bit hash space, as
// DynamoDB's internal hash function spreads them over partitions: FNV-1a
// followed by a 64-bit finaliser so that the high bits, which select the
// parallel-scan segment, are well mixed.
func partitionHash(encodedPK string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(encodedPK))
	return mix64(h.Sum64())
}

// mix64 is the splitmix64 finalizer: it spreads every input bit over the
// output.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// segmentOf is the parallel-scan segment of a partition hash: segment i of
// n covers the i-th of n equal, contiguous ranges of the hash space, so all
// items of one partition key share a segment and segments are about even.
func segmentOf(hash uint64, total int) int {
	hi, _ := bits.Mul64(hash, uint64(total))
	return int(hi)
}

// compareKeys orders primary keys as a Scan returns them: by partition
// hash, then partition key, then sort key (numbers by value, strings and
// binaries by their bytes).
func compareKeys(a, b primaryKey) int {
	switch {
	case a.hash < b.hash:
		return -1
	case a.hash > b.hash:
		return 1
	}
	if c := strings.Compare(a.pk, b.pk); c != 0 {
		return c
	}
	switch a.sk.kind {
	case kindN:
		return compareDec(a.skNum, b.skNum)
	case kindS:
		return strings.Compare(a.sk.str, b.sk.str)
	case kindB:
		return bytes.Compare(a.sk.bin, b.sk.bin)
	}
	return 0
}
