package awssim

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// maxBatchWriteRequests is BatchWriteItem's limit of put and delete
// requests per call, over all tables.
const maxBatchWriteRequests = 25

// msgDataNotFound is DynamoDB's ResourceNotFoundException message of the
// item operations (they do not name the table).
const msgDataNotFound = "Requested resource not found"

// openTable finds the table of an item request and settles it at now. The
// item store is created when create is set. s.mu must be held.
func (c *call) openTable(name string, create bool) (*Table, *tableItems, time.Time, error) {
	s := c.srv
	t, ti := s.tableData(c.region, name, create)
	if t == nil {
		return nil, nil, time.Time{}, apiErr(ErrResourceNotFound, msgDataNotFound)
	}
	now := s.now()
	s.settleTable(c.region, t, now)
	return t, ti, now, nil
}

// openKey opens the table of an item request about one existing item and
// checks its key. It returns the item's id in the table's store (nil if the
// table holds no item yet). s.mu must be held.
func (c *call) openKey(name string, key item) (*Table, *tableItems, string, error) {
	t, ti, _, err := c.openTable(name, false)
	if err != nil {
		return nil, nil, "", err
	}
	ks := schemaOf(t)
	k, err := ks.checkKey(key, false)
	if err != nil {
		return nil, nil, "", err
	}
	return t, ti, ks.keyOf(k).id, nil
}

// admitTable runs the IAM and fault checks and the table name check of a
// request about one table.
func (c *call) admitTable(name string) error {
	if err := c.admit(c.srv.tableARN(c.region, name), name); err != nil {
		return err
	}
	return validateTableName(name)
}

// refuseConditions answers the conditional write parameters, which the
// simulator does not evaluate, and expression parameters without an
// expression, as DynamoDB does.
func refuseConditions(cond *string, legacy json.RawMessage, names map[string]string, values map[string]json.RawMessage) error {
	if cond != nil || len(legacy) > 0 {
		return apiErr(ErrValidation, "awssim: conditional writes (ConditionExpression, Expected) are not simulated")
	}
	if names != nil {
		return apiErr(ErrValidation, "ExpressionAttributeNames can only be specified when using expressions")
	}
	if values != nil {
		return apiErr(ErrValidation, "ExpressionAttributeValues can only be specified when using expressions")
	}
	return nil
}

// checkReturnValues accepts the ReturnValues of PutItem and DeleteItem.
func checkReturnValues(v string) error {
	switch v {
	case "", "NONE", "ALL_OLD":
		return nil
	case "ALL_NEW", "UPDATED_OLD", "UPDATED_NEW":
		return apiErr(ErrValidation, "ReturnValues can only be ALL_OLD or NONE")
	}
	return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%s' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]", v))
}

// ddbWriteInput is the request of PutItem (with Item) and DeleteItem (with
// Key).
type ddbWriteInput struct {
	TableName                 string
	Item                      item
	Key                       item
	ReturnValues              string
	ReturnConsumedCapacity    string
	ConditionExpression       *string
	Expected                  json.RawMessage
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]json.RawMessage
}

// ddbWriteOutput is the answer of PutItem and DeleteItem.
type ddbWriteOutput struct {
	Attributes       item                 `json:",omitempty"`
	ConsumedCapacity *ddbConsumedCapacity `json:",omitempty"`
}

// decodeWrite decodes and checks a PutItem or DeleteItem request. member is
// the request's required item ("item") or key ("key").
func (c *call) decodeWrite(member string) (*ddbWriteInput, error) {
	in := &ddbWriteInput{}
	if err := c.decodeJSON(in); err != nil {
		return nil, err
	}
	if err := c.admitTable(in.TableName); err != nil {
		return nil, err
	}
	if (member == "item" && in.Item == nil) || (member == "key" && in.Key == nil) {
		return nil, apiErr(ErrValidation, "1 validation error detected: Value null at '"+member+"' failed to satisfy constraint: Member must not be null")
	}
	if err := firstErr(checkReturnValues(in.ReturnValues), checkReturnCapacity(in.ReturnConsumedCapacity),
		refuseConditions(in.ConditionExpression, in.Expected, in.ExpressionAttributeNames, in.ExpressionAttributeValues)); err != nil {
		return nil, err
	}
	return in, nil
}

// output answers a write to t that replaced or deleted old (nil if there
// was none) and wrote written bytes.
func (in *ddbWriteInput) output(t *Table, old *itemEntry, written int64) ddbWriteOutput {
	out := ddbWriteOutput{}
	if old != nil && in.ReturnValues == "ALL_OLD" {
		out.Attributes = old.item
	}
	out.ConsumedCapacity = consumed(in.ReturnConsumedCapacity, t.Name, writeUnits(writtenSize(old, written)))
	return out
}

// writtenSize is the size a write is charged for: the larger of the item
// written (size, 0 for a delete) and the item it replaced or deleted (old,
// nil if there was none).
func writtenSize(old *itemEntry, size int64) int64 {
	if old == nil {
		return size
	}
	return max(size, old.size)
}

func (c *call) ddbPutItem() (any, error) {
	in, err := c.decodeWrite("item")
	if err != nil {
		return nil, err
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti, now, err := c.openTable(in.TableName, true)
	if err != nil {
		return nil, err
	}
	it, size, err := prepareItem(ti.schema, in.Item)
	if err != nil {
		return nil, err
	}
	return in.output(t, s.writeItem(t, ti, it, size, now), size), nil
}

func (c *call) ddbGetItem() (any, error) {
	var in struct {
		TableName              string
		Key                    item
		ConsistentRead         *bool
		ReturnConsumedCapacity string
		readExpressions
	}
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admitTable(in.TableName); err != nil {
		return nil, err
	}
	if in.Key == nil {
		return nil, apiErr(ErrValidation, "1 validation error detected: Value null at 'key' failed to satisfy constraint: Member must not be null")
	}
	if err := checkReturnCapacity(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	proj, err := in.projection()
	if err != nil {
		return nil, err
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti, id, err := c.openKey(in.TableName, in.Key)
	if err != nil {
		return nil, err
	}
	var out struct {
		Item             *item                `json:",omitempty"`
		ConsumedCapacity *ddbConsumedCapacity `json:",omitempty"`
	}
	var size int64
	if ti != nil {
		if e := ti.byID[id]; e != nil {
			projected := proj.apply(e.item)
			out.Item = &projected
			size = e.size
		}
	}
	// A read is charged for the whole item, whatever the projection.
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	out.ConsumedCapacity = consumed(in.ReturnConsumedCapacity, t.Name, readUnits(size, consistent))
	return out, nil
}

func (c *call) ddbDeleteItem() (any, error) {
	in, err := c.decodeWrite("key")
	if err != nil {
		return nil, err
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti, id, err := c.openKey(in.TableName, in.Key)
	if err != nil {
		return nil, err
	}
	var old *itemEntry
	if ti != nil {
		old = ti.remove(id)
	}
	return in.output(t, old, 0), nil
}

// ddbWriteRequest is one request of BatchWriteItem.
type ddbWriteRequest struct {
	PutRequest    *struct{ Item item }
	DeleteRequest *struct{ Key item }
}

func (c *call) ddbBatchWriteItem() (any, error) {
	var in struct {
		RequestItems           map[string][]ddbWriteRequest
		ReturnConsumedCapacity string
	}
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	tables := slices.Sorted(maps.Keys(in.RequestItems))
	if err := c.admit(c.srv.tableARN(c.region, "*"), tables...); err != nil {
		return nil, err
	}
	if err := checkBatchShape(in.RequestItems); err != nil {
		return nil, err
	}
	for _, name := range tables {
		if err := validateTableName(name); err != nil {
			return nil, err
		}
	}
	if err := checkReturnCapacity(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()

	// Validate everything before writing anything, as DynamoDB does.
	type op struct {
		put  item // nil for a delete
		size int64
		id   string
	}
	plans := make(map[string][]op, len(tables))
	for _, name := range tables {
		t, _, _, err := c.openTable(name, false)
		if err != nil {
			return nil, err
		}
		ks := schemaOf(t)
		seen := map[string]bool{}
		for _, r := range in.RequestItems[name] {
			var o op
			if r.PutRequest != nil {
				if r.PutRequest.Item == nil {
					return nil, apiErr(ErrValidation, "1 validation error detected: Value null at 'requestItems."+name+".member.putRequest.item' failed to satisfy constraint: Member must not be null")
				}
				it, size, err := prepareItem(ks, r.PutRequest.Item)
				if err != nil {
					return nil, err
				}
				o = op{put: it, size: size, id: ks.keyOf(it).id}
			} else {
				if r.DeleteRequest.Key == nil {
					return nil, apiErr(ErrValidation, "1 validation error detected: Value null at 'requestItems."+name+".member.deleteRequest.key' failed to satisfy constraint: Member must not be null")
				}
				key, err := ks.checkKey(r.DeleteRequest.Key, false)
				if err != nil {
					return nil, err
				}
				o = op{id: ks.keyOf(key).id}
			}
			if seen[o.id] {
				return nil, apiErr(ErrValidation, "Provided list of item keys contains duplicates")
			}
			seen[o.id] = true
			plans[name] = append(plans[name], o)
		}
	}

	out := struct {
		UnprocessedItems map[string][]ddbWriteRequest
		ConsumedCapacity []*ddbConsumedCapacity `json:",omitempty"`
	}{UnprocessedItems: map[string][]ddbWriteRequest{}}
	for _, name := range tables {
		t, ti, now, err := c.openTable(name, true)
		if err != nil {
			return nil, err
		}
		var units float64
		for _, o := range plans[name] {
			var old *itemEntry
			if o.put != nil {
				old = s.writeItem(t, ti, o.put, o.size, now)
			} else {
				old = ti.remove(o.id)
			}
			units += writeUnits(writtenSize(old, o.size))
		}
		if cc := consumed(in.ReturnConsumedCapacity, name, units); cc != nil {
			out.ConsumedCapacity = append(out.ConsumedCapacity, cc)
		}
	}
	return out, nil
}

// checkBatchShape applies BatchWriteItem's limits on the number of
// requests and the shape of each request. Messages name no value.
func checkBatchShape(reqs map[string][]ddbWriteRequest) error {
	if len(reqs) == 0 {
		return apiErr(ErrValidation, "1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	total := 0
	for _, rs := range reqs {
		if len(rs) == 0 {
			return apiErr(ErrValidation, "1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length greater than or equal to 1]")
		}
		total += len(rs)
		for _, r := range rs {
			if (r.PutRequest == nil) == (r.DeleteRequest == nil) {
				return apiErr(ErrValidation, "Supplied WriteRequest must contain exactly one of PutRequest or DeleteRequest")
			}
		}
	}
	if total > maxBatchWriteRequests {
		return apiErr(ErrValidation, "Too many items requested for the BatchWriteItem call")
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
