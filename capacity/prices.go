package capacity

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// PricesAsOf is the date at which the built-in list prices were last checked.
// They are public list prices (no Savings Plans, reserved capacity, free tier
// or private discounts); override them with PriceOverride when they are wrong
// for an account or have changed since.
const PricesAsOf = "2025-06-01"

// Prices are the capacity prices of one region and table class, in USD.
type Prices struct {
	// OnDemandReadPerMillion is the price of one million read request units.
	OnDemandReadPerMillion float64 `yaml:"on_demand_read_per_million" json:"on_demand_read_per_million"`
	// OnDemandWritePerMillion is the price of one million write request units.
	OnDemandWritePerMillion float64 `yaml:"on_demand_write_per_million" json:"on_demand_write_per_million"`
	// ProvisionedRCUHour is the price of one read capacity unit for one hour.
	ProvisionedRCUHour float64 `yaml:"provisioned_rcu_hour" json:"provisioned_rcu_hour"`
	// ProvisionedWCUHour is the price of one write capacity unit for one hour.
	ProvisionedWCUHour float64 `yaml:"provisioned_wcu_hour" json:"provisioned_wcu_hour"`
	// StorageGBMonth is the price of one GB (2^30 bytes) stored for a month.
	// Optional: PricesForClass leaves it zero where it knows no storage
	// price, and the storage figures are then not computed (StoragePriceFor
	// says why); the throughput figures do not need it.
	StorageGBMonth float64 `yaml:"storage_gb_month,omitempty" json:"storage_gb_month,omitempty"`
}

// Validate reports the first price that is not a positive finite number.
func (p Prices) Validate() error {
	for _, f := range p.fields() {
		if !(*f.v > 0) || math.IsInf(*f.v, 0) {
			return fmt.Errorf("capacity: Prices.%s must be a positive number, got %v", f.name, *f.v)
		}
	}
	return nil
}

type priceField struct {
	name string
	v    *float64
}

func (p *Prices) fields() []priceField {
	return []priceField{
		{"OnDemandReadPerMillion", &p.OnDemandReadPerMillion},
		{"OnDemandWritePerMillion", &p.OnDemandWritePerMillion},
		{"ProvisionedRCUHour", &p.ProvisionedRCUHour},
		{"ProvisionedWCUHour", &p.ProvisionedWCUHour},
	}
}

// scaled returns p with every throughput price multiplied by k (the
// storage price is the class's own: StoragePriceFor).
func (p Prices) scaled(k float64) Prices {
	return Prices{
		OnDemandReadPerMillion:  p.OnDemandReadPerMillion * k,
		OnDemandWritePerMillion: p.OnDemandWritePerMillion * k,
		ProvisionedRCUHour:      p.ProvisionedRCUHour * k,
		ProvisionedWCUHour:      p.ProvisionedWCUHour * k,
		StorageGBMonth:          p.StorageGBMonth,
	}
}

// TableClass is a DynamoDB table class, spelled as in the DynamoDB API.
type TableClass string

const (
	// Standard is the default table class.
	Standard TableClass = "STANDARD"
	// StandardIA is the Standard-Infrequent-Access table class: cheaper
	// storage, dearer throughput.
	StandardIA TableClass = "STANDARD_INFREQUENT_ACCESS"
)

// standardIAMultiplier is the Standard-IA throughput price relative to
// Standard. AWS publishes rounded figures that are about 25% above Standard
// in every region (us-east-1: $0.00081 per WCU-hour, $0.00016 per RCU-hour,
// $0.78/$0.16 per million on-demand write/read units); the rounding makes the
// published figures differ from 1.25× by up to 2%.
const standardIAMultiplier = 1.25

// listPrices holds the Standard table-class list prices per region, after the
// November 2024 on-demand price cut (-50%).
//
// us-east-1 is certain. The other regions are recalled from the AWS pricing
// page, not re-checked at PricesAsOf: each keeps the regional premium over
// us-east-1 identical for on-demand and provisioned, which the published
// prices do, but treat them as "verify before relying on them" and override
// them in config when they disagree with the pricing page or the bill.
var listPrices = map[string]Prices{
	"us-east-1":      {OnDemandReadPerMillion: 0.125, OnDemandWritePerMillion: 0.625, ProvisionedRCUHour: 0.00013, ProvisionedWCUHour: 0.00065},
	"us-east-2":      {OnDemandReadPerMillion: 0.125, OnDemandWritePerMillion: 0.625, ProvisionedRCUHour: 0.00013, ProvisionedWCUHour: 0.00065},
	"us-west-2":      {OnDemandReadPerMillion: 0.125, OnDemandWritePerMillion: 0.625, ProvisionedRCUHour: 0.00013, ProvisionedWCUHour: 0.00065},
	"us-west-1":      {OnDemandReadPerMillion: 0.1394, OnDemandWritePerMillion: 0.6971, ProvisionedRCUHour: 0.000145, ProvisionedWCUHour: 0.000725},  // unverified
	"eu-west-1":      {OnDemandReadPerMillion: 0.1415, OnDemandWritePerMillion: 0.7068, ProvisionedRCUHour: 0.000147, ProvisionedWCUHour: 0.000735},  // unverified
	"eu-central-1":   {OnDemandReadPerMillion: 0.1525, OnDemandWritePerMillion: 0.7625, ProvisionedRCUHour: 0.0001586, ProvisionedWCUHour: 0.000793}, // unverified
	"eu-west-2":      {OnDemandReadPerMillion: 0.1485, OnDemandWritePerMillion: 0.7423, ProvisionedRCUHour: 0.0001544, ProvisionedWCUHour: 0.000772}, // unverified
	"ap-southeast-1": {OnDemandReadPerMillion: 0.1423, OnDemandWritePerMillion: 0.7116, ProvisionedRCUHour: 0.000148, ProvisionedWCUHour: 0.00074},   // unverified
	"ap-southeast-2": {OnDemandReadPerMillion: 0.1423, OnDemandWritePerMillion: 0.7116, ProvisionedRCUHour: 0.000148, ProvisionedWCUHour: 0.00074},   // unverified
	"ap-northeast-1": {OnDemandReadPerMillion: 0.1427, OnDemandWritePerMillion: 0.7135, ProvisionedRCUHour: 0.0001484, ProvisionedWCUHour: 0.000742}, // unverified
	"ap-south-1":     {OnDemandReadPerMillion: 0.1423, OnDemandWritePerMillion: 0.7116, ProvisionedRCUHour: 0.000148, ProvisionedWCUHour: 0.00074},   // unverified
	"sa-east-1":      {OnDemandReadPerMillion: 0.1875, OnDemandWritePerMillion: 0.9375, ProvisionedRCUHour: 0.000195, ProvisionedWCUHour: 0.000975},  // unverified
}

// Regions lists the regions that have built-in list prices, sorted.
func Regions() []string {
	out := make([]string, 0, len(listPrices))
	for r := range listPrices {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// PriceOverride replaces some or all list prices of one region; config fills
// it. Zero price fields keep the list price, so a region without list prices
// needs all four.
type PriceOverride struct {
	// Region is the AWS region the override applies to, e.g. "eu-west-3".
	Region string `yaml:"region" json:"region"`
	// TableClass restricts the override to one table class; empty applies
	// it to every class (the prices are then taken as final, not multiplied
	// by the Standard-IA premium).
	TableClass TableClass `yaml:"table_class" json:"table_class"`
	// Prices are the replacement prices; zero fields are ignored.
	Prices `yaml:",inline" json:",inline"`
}

// PricesFor returns the Standard table-class prices of region, with the
// overrides for that region applied in order (later ones win).
func PricesFor(region string, overrides ...PriceOverride) (Prices, error) {
	return PricesForClass(region, Standard, overrides...)
}

// PricesForClass returns the prices of region for a table class, with the
// overrides for that region and class applied in order (later ones win). An
// unknown region is an error naming it unless the overrides supply every
// price.
func PricesForClass(region string, class TableClass, overrides ...PriceOverride) (Prices, error) {
	key := strings.ToLower(strings.TrimSpace(region))
	if class == "" {
		class = Standard
	}
	if class != Standard && class != StandardIA {
		return Prices{}, fmt.Errorf("capacity: unknown table class %q (want %s or %s)", class, Standard, StandardIA)
	}
	p, known := listPrices[key]
	if known && class == StandardIA {
		p = p.scaled(standardIAMultiplier)
	}
	for i, o := range overrides {
		if strings.ToLower(strings.TrimSpace(o.Region)) != key {
			continue
		}
		if o.TableClass != "" && o.TableClass != class {
			continue
		}
		src := o.Prices
		for j, f := range src.fields() {
			if *f.v < 0 || math.IsNaN(*f.v) || math.IsInf(*f.v, 0) {
				return Prices{}, fmt.Errorf("capacity: price override %d for region %q: %s must be a positive number, got %v", i, region, f.name, *f.v)
			}
			if *f.v > 0 {
				*p.fields()[j].v = *f.v
			}
		}
	}
	for _, f := range p.fields() {
		if *f.v == 0 {
			return Prices{}, fmt.Errorf("capacity: no list price for region %q (%s missing): add a price override for it", region, f.name)
		}
	}
	return p, p.Validate()
}
