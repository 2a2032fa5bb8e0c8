package awssim

import (
	"time"
)

// ttlChangeInterval is how long DynamoDB refuses further UpdateTimeToLive
// calls after a change (UpdateTimeToLive API reference: "It can take up to
// one hour for the change to fully process. Any additional UpdateTimeToLive
// calls for the same table during this one hour duration result in a
// ValidationException").
const ttlChangeInterval = time.Hour

func (c *call) ddbUpdateTimeToLive() (any, error) {
	type spec struct {
		Enabled       *bool
		AttributeName *string
	}
	var in struct {
		TableName               string
		TimeToLiveSpecification *spec
	}
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admitTable(in.TableName); err != nil {
		return nil, err
	}
	sp := in.TimeToLiveSpecification
	switch {
	case sp == nil:
		return nil, apiErr(ErrValidation, "1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
	case sp.Enabled == nil:
		return nil, apiErr(ErrValidation, "1 validation error detected: Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null")
	case sp.AttributeName == nil:
		return nil, apiErr(ErrValidation, "1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null")
	case *sp.AttributeName == "" || len(*sp.AttributeName) > 255:
		return nil, apiErr(ErrValidation, "1 validation error detected: Value at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255, Member must have length greater than or equal to 1")
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := c.table(in.TableName)
	if err != nil {
		return nil, err
	}
	now := s.now()
	// Deletions due under the old setting happen before it changes.
	s.settleTable(c.region, t, now)
	if err := applyTTLUpdate(t, *sp.Enabled, *sp.AttributeName, now); err != nil {
		return nil, err
	}
	s.resetSweep(c.region, t.Name)
	return struct{ TimeToLiveSpecification spec }{*sp}, nil
}

// applyTTLUpdate changes t's TTL setting under DynamoDB's rules or explains
// why DynamoDB refuses the change.
func applyTTLUpdate(t *Table, enable bool, attr string, now time.Time) error {
	cur := t.TTL
	on := cur.Status == TTLEnabled || cur.Status == TTLEnabling
	switch {
	case enable && on && cur.AttributeName == attr:
		return apiErr(ErrValidation, "TimeToLive is already enabled")
	case enable && on:
		return apiErr(ErrValidation, "TimeToLive is active on a different AttributeName")
	case !enable && !on:
		return apiErr(ErrValidation, "TimeToLive is already disabled")
	}
	if !cur.LastModified.IsZero() && now.Sub(cur.LastModified) < ttlChangeInterval {
		return apiErr(ErrValidation, "Time to live has been modified multiple times within a fixed interval")
	}
	next := TimeToLive{AttributeName: attr, LastModified: now}
	switch {
	case enable && t.TTLTransition > 0:
		next.Status, next.TransitionEnds = TTLEnabling, now.Add(t.TTLTransition)
	case enable:
		next.Status = TTLEnabled
	case t.TTLTransition > 0:
		next.Status, next.TransitionEnds = TTLDisabling, now.Add(t.TTLTransition)
	default:
		next.Status = TTLDisabled
	}
	t.TTL = next
	return nil
}
