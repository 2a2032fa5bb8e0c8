package collectors

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

type cwDim struct{ name, value string }

func toDims(ds []cwDim) []cwtypes.Dimension {
	out := make([]cwtypes.Dimension, len(ds))
	for i, d := range ds {
		out[i] = cwtypes.Dimension{Name: aws.String(d.name), Value: aws.String(d.value)}
	}
	return out
}
