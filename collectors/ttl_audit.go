package collectors

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
)

// TTLAuditTable is what a one-off TTL audit reads of a table before it
// samples it (SampleTable).
type TTLAuditTable struct {
	Description *types.TableDescription
	// Status is the table's TTL status (ENABLED, DISABLED…).
	Status string
	// Attribute is the attribute the sample classifies.
	Attribute string
	// Items is the item count DynamoDB reports (updated about every six
	// hours).
	Items int64
}

// DescribeForTTLAudit describes table and its TTL setting, and chooses the
// attribute to sample: attribute when not empty, else the table's TTL
// attribute; a table with neither is an error that says to name one.
func DescribeForTTLAudit(ctx context.Context, api awsclient.DynamoDBAPI, table, attribute string) (TTLAuditTable, error) {
	desc, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return TTLAuditTable{}, fmt.Errorf("describing table %s: %w", table, err)
	}
	ttlDesc, err := api.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	if err != nil {
		return TTLAuditTable{}, fmt.Errorf("describing time to live of table %s: %w", table, err)
	}
	status := types.TimeToLiveStatus("")
	if ttlDesc.TimeToLiveDescription != nil {
		status = ttlDesc.TimeToLiveDescription.TimeToLiveStatus
	}
	if attribute == "" {
		var ok bool
		tb := &Table{Name: table, Description: desc.Table, TTL: ttlDesc.TimeToLiveDescription}
		if attribute, ok = TTLAttribute(tb, nil); !ok {
			return TTLAuditTable{}, fmt.Errorf("table %s has TTL %s and no attribute; pass --attribute", table, status)
		}
	}
	return TTLAuditTable{Description: desc.Table, Status: string(status), Attribute: attribute, Items: aws.ToInt64(desc.Table.ItemCount)}, nil
}
