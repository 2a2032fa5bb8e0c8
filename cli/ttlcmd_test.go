package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

func TestTTLDecodeOutput(t *testing.T) {
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		value string
		want  []string
	}{
		{"1790812800000", []string{"class: milliseconds", "58718-", "looks like milliseconds: meant 2026-10-01T00:00:00Z; store 1790812800 seconds instead", "TTL will never delete"}},
		{"1790812800", []string{"class: expired", "2026-10-01T00:00:00Z"}},
		{"1800000000", []string{"class: live", "2027-01-15T08:00:00Z"}},
		{"1e400", []string{"class: invalid_number", "not a DynamoDB Number"}},
	}
	for _, c := range cases {
		var b bytes.Buffer
		writeDecode(&b, c.value, now)
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("decode %s: output lacks %q:\n%s", c.value, w, b.String())
			}
		}
		if c.value != "1790812800" && strings.Contains(b.String(), "class: expired") {
			t.Errorf("decode %s misclassified:\n%s", c.value, b.String())
		}
	}
}

func TestTTLAuditOnDynamoDBLocal(t *testing.T) {
	endpoint := testtools.StartDynamoDBLocal(t)
	ctx := context.Background()
	now := time.Now()
	c := dynamodb.NewFromConfig(testtools.AWSConfig(endpoint))
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("sessions"),
		BillingMode:          types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		v := now.Add(time.Hour).Unix()
		switch {
		case i < 8:
			v = now.Add(-3 * time.Hour).Unix()
		case i < 12:
			v = now.UnixMilli()
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("sessions"), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: fmt.Sprintf("user-%d", i)}, "ttl": &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	target, err := awsclient.NewTarget(ctx, config.Account{Name: "local"}, "us-east-1", awsclient.Options{
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		Endpoints:   config.Endpoints{DynamoDB: endpoint},
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := &ttlAuditCmd{Table: "sessions", SampleItems: 1500, Budget: 100}
	var out bytes.Buffer
	if err := audit(ctx, target, cmd, &out, &out, false, now); err == nil || !strings.Contains(err.Error(), "pass --attribute") {
		t.Fatalf("audit of a table with TTL disabled and no --attribute: err = %v", err)
	}
	cmd.Attribute = "ttl"
	out.Reset()
	if err := audit(ctx, target, cmd, &out, &out, false, now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"sampled 1/1 segments",
		"read 30 items in 1 of 1 segments",
		"expired, not yet deleted: 8 items (95% interval 8 to 8), 26.67% of 30 items (every segment read: exact)",
		"never expiring: 4 items",
		"oldest expired item seen expired 3h0m0s ago",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("audit output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "user-") {
		t.Error("audit output contains item keys")
	}

	// The other formats: the same figures, no progress on the report's
	// writer, no item key.
	formats := map[string]string{}
	for _, f := range []string{"json", "markdown", "html"} {
		cmd.Format = f
		var report, status bytes.Buffer
		if err := audit(ctx, target, cmd, &report, &status, false, now); err != nil {
			t.Fatalf("--format %s: %v", f, err)
		}
		if !strings.Contains(status.String(), "sampled 1/1 segments") || strings.Contains(report.String(), "sampled 1/1") {
			t.Errorf("--format %s: progress on the report's writer or missing from the status one", f)
		}
		if strings.Contains(report.String(), "user-") {
			t.Errorf("--format %s: the report contains item keys", f)
		}
		formats[f] = report.String()
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(formats["json"]), &doc); err != nil {
		t.Fatal(err)
	}
	exp := doc["estimates"].(map[string]any)["expired"].(map[string]any)
	if exp["items"] != 8.0 || exp["exact"] != true || doc["sample"].(map[string]any)["items_read"] != 30.0 || doc["oldest_expired_age_seconds"] != 10800.0 {
		t.Errorf("JSON audit: %s", formats["json"])
	}
	checkDocumented(t, doc, filepath.Join("..", "docs", "ttl-audit.md"))
	if !strings.Contains(formats["markdown"], "| Expired, not yet deleted | 8 items (95% interval 8 to 8), 26.67% of 30 items (every segment read: exact) |") ||
		!strings.Contains(formats["markdown"], "| milliseconds | 4 |") {
		t.Errorf("markdown audit:\n%s", formats["markdown"])
	}
	page := formats["html"]
	for _, bad := range []string{"<script", "<link", "@import", "url(", `src="http`} {
		if strings.Contains(page, bad) {
			t.Errorf("HTML audit loads an external asset (%s)", bad)
		}
	}
	if !strings.Contains(page, "<svg") || strings.Count(page, "<rect") != 10 || !strings.Contains(page, "8 items (95% interval 8 to 8)") {
		t.Errorf("HTML audit lacks its chart or figures:\n%s", page)
	}
	t.Run("chromium", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "ttl-audit.html")
		if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		shoot(t, "file://"+file, "ttl-audit", 900)
	})
}
