// Command dynamodb_exporter is a Prometheus exporter for Amazon DynamoDB: for
// every table and index it tells whether the capacity mode still fits the
// traffic and whether TTL is really cleaning up. Its command line is package
// cli; `dynamodb_exporter --help` lists the commands.
package main

import "github.com/dynamodb-exporter/dynamodb_exporter/cli"

func main() {
	cli.Main()
}
