package exporter_test

import (
	"fmt"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

const ns = "AWS/DynamoDB"

func provisioned(name string, rcu, wcu int64, gsis ...string) awssim.Table {
	t := awssim.Table{
		Name:                 name,
		BillingMode:          awssim.BillingProvisioned,
		ItemCount:            1000,
		SizeBytes:            1 << 20,
		Throughput:           awssim.Throughput{ReadCapacityUnits: rcu, WriteCapacityUnits: wcu},
		KeySchema:            []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []awssim.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		TTL:                  awssim.TimeToLive{Status: awssim.TTLDisabled},
	}
	for _, g := range gsis {
		t.GSIs = append(t.GSIs, awssim.GlobalSecondaryIndex{
			IndexName:  g,
			KeySchema:  []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
			ItemCount:  500,
			SizeBytes:  1 << 19,
			Throughput: awssim.Throughput{ReadCapacityUnits: rcu / 2, WriteCapacityUnits: wcu / 2},
		})
	}
	return t
}

func tagged(t awssim.Table, kv ...string) awssim.Table {
	t.Tags = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		t.Tags[kv[i]] = kv[i+1]
	}
	return t
}

func mustPut(sim *awssim.Server, region string, t awssim.Table) {
	if err := sim.PutTable(region, t); err != nil {
		panic(fmt.Sprintf("PutTable %s: %v", t.Name, err))
	}
}

// metric builds an AWS/DynamoDB metric with dimensions given as name, value pairs.
func metric(name string, dims ...string) awssim.Metric {
	m := awssim.Metric{Namespace: ns, Name: name}
	for i := 0; i+1 < len(dims); i += 2 {
		m.Dimensions = append(m.Dimensions, awssim.Dimension{Name: dims[i], Value: dims[i+1]})
	}
	return m
}

// putSum stores one minute's Sum for a metric.
func putSum(sim *awssim.Server, region string, m awssim.Metric, minute time.Time, v float64) {
	sim.Metrics().Put(region, m, awssim.Datapoint{Time: minute, Sum: v, SampleCount: 1, Minimum: v, Maximum: v})
}
