package awssim

import "fmt"

// Limits are an account's provisioned-throughput quotas in one region, as
// DescribeLimits answers them.
type Limits struct {
	AccountMaxReadCapacityUnits  int64
	AccountMaxWriteCapacityUnits int64
	TableMaxReadCapacityUnits    int64
	TableMaxWriteCapacityUnits   int64
}

// DefaultLimits are AWS's default throughput quotas for provisioned tables:
// 40,000 read and 40,000 write capacity units per table (and per global
// secondary index) and 80,000 of each per account and
// region (Amazon DynamoDB Developer Guide, "Quotas in Amazon DynamoDB",
// "Throughput default quotas":
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
var DefaultLimits = Limits{
	AccountMaxReadCapacityUnits:  80000,
	AccountMaxWriteCapacityUnits: 80000,
	TableMaxReadCapacityUnits:    40000,
	TableMaxWriteCapacityUnits:   40000,
}

// SetLimits sets the quotas of region (DefaultLimits until set); a zero
// field keeps its default.
func (s *Server) SetLimits(region string, l Limits) {
	d := DefaultLimits
	if l.AccountMaxReadCapacityUnits > 0 {
		d.AccountMaxReadCapacityUnits = l.AccountMaxReadCapacityUnits
	}
	if l.AccountMaxWriteCapacityUnits > 0 {
		d.AccountMaxWriteCapacityUnits = l.AccountMaxWriteCapacityUnits
	}
	if l.TableMaxReadCapacityUnits > 0 {
		d.TableMaxReadCapacityUnits = l.TableMaxReadCapacityUnits
	}
	if l.TableMaxWriteCapacityUnits > 0 {
		d.TableMaxWriteCapacityUnits = l.TableMaxWriteCapacityUnits
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.region(region).limits = &d
}

// limitsOf returns region's quotas. s.mu must be held.
func (s *Server) limitsOf(region string) Limits {
	if l := s.region(region).limits; l != nil {
		return *l
	}
	return DefaultLimits
}

// ddbDescribeLimits answers DescribeLimits: the four quotas of the caller's
// region (DescribeLimits API reference). It takes no table, so only the IAM
// and fault checks of the operation apply.
func (c *call) ddbDescribeLimits() (any, error) {
	var in struct{}
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admit(c.srv.tableARN(c.region, "*")); err != nil {
		return nil, err
	}
	c.srv.mu.Lock()
	l := c.srv.limitsOf(c.region)
	c.srv.mu.Unlock()
	return l, nil
}

// checkLimits refuses a provisioned capacity that AWS would refuse. The
// developer guide ("Quotas in Amazon DynamoDB", "Throughput default
// quotas") says: for provisioned tables "the quota is the maximum amount of
// read and write capacity units that can be provisioned for any table or
// any of its GSIs in the Region" (each one on its own), and the total of
// all provisioned tables and their GSIs must remain below the account-level
// quota; on-demand tables count toward neither. (The DescribeLimits API
// reference describes the table maximum as "including the read capacity
// units provisioned for its global secondary indexes"; the simulator
// follows the developer guide, the more recent and more precise text.) AWS
// answers LimitExceededException; the wording is the simulator's. next is
// the table after the update; s.mu must be held.
func (s *Server) checkLimits(region string, next *Table) error {
	if next.BillingMode != BillingProvisioned {
		return nil
	}
	l := s.limitsOf(region)
	over := func(what string, th Throughput) error {
		if th.ReadCapacityUnits > l.TableMaxReadCapacityUnits || th.WriteCapacityUnits > l.TableMaxWriteCapacityUnits {
			return apiErr(ErrLimitExceeded, fmt.Sprintf(
				"Subscriber limit exceeded: %s would have %d read and %d write capacity units; the table-level maximum is %d read and %d write",
				what, th.ReadCapacityUnits, th.WriteCapacityUnits, l.TableMaxReadCapacityUnits, l.TableMaxWriteCapacityUnits))
		}
		return nil
	}
	if err := over("table "+next.Name, next.Throughput); err != nil {
		return err
	}
	for _, g := range next.GSIs {
		if err := over("index "+g.IndexName+" of table "+next.Name, g.Throughput); err != nil {
			return err
		}
	}
	r, w := provisionedTotal(next)
	for name, t := range s.region(region).tables {
		if name == next.Name || t.BillingMode != BillingProvisioned {
			continue
		}
		tr, tw := provisionedTotal(t)
		r, w = r+tr, w+tw
	}
	if r > l.AccountMaxReadCapacityUnits || w > l.AccountMaxWriteCapacityUnits {
		return apiErr(ErrLimitExceeded, fmt.Sprintf(
			"Subscriber limit exceeded: the account would have %d read and %d write capacity units provisioned in %s; the account-level maximum is %d read and %d write",
			r, w, region, l.AccountMaxReadCapacityUnits, l.AccountMaxWriteCapacityUnits))
	}
	return nil
}

// provisionedTotal is t's provisioned capacity with that of its global
// secondary indexes.
func provisionedTotal(t *Table) (read, write int64) {
	read, write = t.Throughput.ReadCapacityUnits, t.Throughput.WriteCapacityUnits
	for _, g := range t.GSIs {
		read += g.Throughput.ReadCapacityUnits
		write += g.Throughput.WriteCapacityUnits
	}
	return read, write
}
