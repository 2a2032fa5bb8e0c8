package testtools

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// AWSConfig returns an AWS SDK configuration for a local endpoint such as one
// returned by StartDynamoDBLocal: region us-east-1, static dummy credentials
// and the endpoint as base endpoint. It reads nothing from the environment or
// ~/.aws, so tests cannot reach a real AWS account by accident.
func AWSConfig(endpoint string) aws.Config {
	return aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(endpoint),
	}
}
