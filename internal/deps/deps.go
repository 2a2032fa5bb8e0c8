// Package deps pins modules that later packages import, so that go mod tidy keeps them.
package deps

import (
	_ "github.com/alecthomas/kong"
	_ "github.com/aws/aws-sdk-go-v2/aws"
	_ "github.com/aws/aws-sdk-go-v2/config"
	_ "github.com/aws/aws-sdk-go-v2/credentials"
	_ "github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	_ "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	_ "github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	_ "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	_ "github.com/aws/aws-sdk-go-v2/service/sts"
	_ "github.com/aws/smithy-go"
	_ "github.com/fxamacker/cbor/v2"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/prometheus/client_golang/prometheus/testutil"
	_ "github.com/prometheus/client_model/go"
	_ "github.com/prometheus/common/expfmt"
	_ "github.com/prometheus/exporter-toolkit/web"
	_ "go.yaml.in/yaml/v3"
)
