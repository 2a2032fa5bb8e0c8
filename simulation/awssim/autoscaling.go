package awssim

import (
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// autoScalingHandlers are the simulated Application Auto Scaling operations.
var autoScalingHandlers = map[string]func(*call) (any, error){
	"DescribeScalableTargets":  (*call).aasDescribeScalableTargets,
	"DescribeScalingPolicies":  (*call).aasDescribeScalingPolicies,
	"DescribeScheduledActions": (*call).aasDescribeScheduledActions,
}

// serviceNamespaces is the ServiceNamespace enum; only dynamodb has state.
var serviceNamespaces = []string{"ecs", "elasticmapreduce", "ec2", "appstream", "dynamodb", "rds", "sagemaker",
	"custom-resource", "comprehend", "lambda", "cassandra", "kafka", "elasticache", "neptune", "workspaces"}

// parseResourceID splits table/NAME or table/NAME/index/INDEX.
func parseResourceID(id string) (table, index string, ok bool) {
	f := strings.Split(id, "/")
	switch {
	case len(f) == 2 && f[0] == "table" && f[1] != "":
		return f[1], "", true
	case len(f) == 4 && f[0] == "table" && f[1] != "" && f[2] == "index" && f[3] != "":
		return f[1], f[3], true
	}
	return "", "", false
}

// checkDimension verifies that dim suits resourceID (table vs index).
func checkDimension(resourceID, dim string) error {
	_, index, ok := parseResourceID(resourceID)
	if !ok {
		return fmt.Errorf("invalid DynamoDB resource ID %q", resourceID)
	}
	switch dim {
	case DimTableRead, DimTableWrite:
		if index == "" {
			return nil
		}
	case DimIndexRead, DimIndexWrite:
		if index != "" {
			return nil
		}
	}
	return fmt.Errorf("scalable dimension %q does not apply to %q", dim, resourceID)
}

// PutScalableTarget registers or replaces a scalable target in region.
func (s *Server) PutScalableTarget(region string, t ScalableTarget) error {
	if err := checkDimension(t.ResourceID, t.ScalableDimension); err != nil {
		return fmt.Errorf("awssim: put scalable target: %w", err)
	}
	if t.MinCapacity < 1 || t.MaxCapacity < t.MinCapacity {
		return fmt.Errorf("awssim: put scalable target %s: need 1 <= MinCapacity <= MaxCapacity", t.ResourceID)
	}
	if t.CreationTime.IsZero() {
		t.CreationTime = s.now()
	}
	if t.RoleARN == "" {
		t.RoleARN = "arn:aws:iam::" + s.account + ":role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.region(region).targets[t.ResourceID+" "+t.ScalableDimension] = &t
	return nil
}

// PutScalingPolicy registers or replaces a target-tracking policy. Its
// scalable target must exist, as in AWS.
func (s *Server) PutScalingPolicy(region string, p ScalingPolicy) error {
	if err := checkDimension(p.ResourceID, p.ScalableDimension); err != nil {
		return fmt.Errorf("awssim: put scaling policy: %w", err)
	}
	if p.PolicyName == "" || p.TargetValue <= 0 {
		return fmt.Errorf("awssim: put scaling policy on %s: need a name and a positive target value", p.ResourceID)
	}
	if p.PredefinedMetricType != MetricReadUtilization && p.PredefinedMetricType != MetricWriteUtilization {
		return fmt.Errorf("awssim: put scaling policy %s: unsupported metric type %q", p.PolicyName, p.PredefinedMetricType)
	}
	if p.CreationTime.IsZero() {
		p.CreationTime = s.now()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.region(region)
	key := p.ResourceID + " " + p.ScalableDimension
	if r.targets[key] == nil {
		return fmt.Errorf("awssim: put scaling policy %s: no scalable target %s", p.PolicyName, key)
	}
	r.policies[key+" "+p.PolicyName] = &p
	return nil
}

// Wire shapes of Application Auto Scaling (AWS JSON 1.1).
type (
	aasSuspendedState struct {
		DynamicScalingInSuspended  bool
		DynamicScalingOutSuspended bool
		ScheduledScalingSuspended  bool
	}
	aasScalableTarget struct {
		ServiceNamespace  string
		ResourceId        string
		ScalableDimension string
		MinCapacity       int32
		MaxCapacity       int32
		RoleARN           string
		CreationTime      float64
		SuspendedState    aasSuspendedState
		ScalableTargetARN string
	}
	aasPredefinedMetric struct {
		PredefinedMetricType string
	}
	aasTargetTracking struct {
		TargetValue                   float64
		PredefinedMetricSpecification aasPredefinedMetric
		ScaleOutCooldown              int32
		ScaleInCooldown               int32
		DisableScaleIn                bool
	}
	aasAlarm struct {
		AlarmName string
		AlarmARN  string
	}
	aasScalingPolicy struct {
		PolicyARN                                string
		PolicyName                               string
		ServiceNamespace                         string
		ResourceId                               string
		ScalableDimension                        string
		PolicyType                               string
		TargetTrackingScalingPolicyConfiguration aasTargetTracking
		Alarms                                   []aasAlarm
		CreationTime                             float64
	}
)

// aasPage validates the common Describe* paging and namespace inputs and
// returns the page size.
func aasPage(namespace string, maxResults *int32, limit int32) (int, error) {
	if namespace == "" {
		return 0, apiErr(ErrValidation, "1 validation error detected: Value null at 'serviceNamespace' failed to satisfy constraint: Member must not be null")
	}
	if !slices.Contains(serviceNamespaces, namespace) {
		return 0, apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%s' at 'serviceNamespace' failed to satisfy constraint: Member must satisfy enum value set: [%s]", namespace, strings.Join(serviceNamespaces, ", ")))
	}
	if maxResults == nil {
		return int(limit), nil
	}
	if *maxResults < 1 || *maxResults > limit {
		return 0, apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%d' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and %d", *maxResults, limit))
	}
	return int(*maxResults), nil
}

// pageAfter returns the page of sorted keys after the opaque token and the
// token of the next page ("" when this is the last page).
func pageAfter(keys []string, token string, size int) (page []string, next string, err error) {
	start := 0
	if token != "" {
		after, derr := base64.RawURLEncoding.DecodeString(token)
		if derr != nil || len(after) == 0 {
			return nil, "", apiErr(ErrInvalidNextToken, "Invalid token")
		}
		start, _ = slices.BinarySearch(keys, string(after))
		if start < len(keys) && keys[start] == string(after) {
			start++
		}
	}
	end := min(start+size, len(keys))
	page = keys[start:end]
	if end < len(keys) {
		next = base64.RawURLEncoding.EncodeToString([]byte(keys[end-1]))
	}
	return page, next, nil
}

// tablesOf lists the table names in Auto Scaling resource IDs.
func tablesOf(ids ...string) []string {
	var out []string
	for _, id := range ids {
		if t, _, ok := parseResourceID(id); ok && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func (c *call) aasDescribeScalableTargets() (any, error) {
	var in struct {
		ServiceNamespace  string
		ResourceIds       []string
		ScalableDimension string
		MaxResults        *int32
		NextToken         string
	}
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admit("", tablesOf(in.ResourceIds...)...); err != nil {
		return nil, err
	}
	size, err := aasPage(in.ServiceNamespace, in.MaxResults, 50)
	if err != nil {
		return nil, err
	}
	if in.ScalableDimension != "" && len(in.ResourceIds) == 0 {
		return nil, apiErr(ErrValidation, "If you specify a scalable dimension, you must also specify a resource ID.")
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.region(c.region)
	out := struct {
		ScalableTargets []aasScalableTarget
		NextToken       string `json:",omitempty"`
	}{ScalableTargets: []aasScalableTarget{}}
	if in.ServiceNamespace != "dynamodb" {
		return out, nil
	}
	var keys []string
	for k, t := range r.targets {
		if (len(in.ResourceIds) == 0 || slices.Contains(in.ResourceIds, t.ResourceID)) &&
			(in.ScalableDimension == "" || in.ScalableDimension == t.ScalableDimension) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	page, next, err := pageAfter(keys, in.NextToken, size)
	if err != nil {
		return nil, err
	}
	for _, k := range page {
		t := r.targets[k]
		out.ScalableTargets = append(out.ScalableTargets, aasScalableTarget{
			ServiceNamespace:  "dynamodb",
			ResourceId:        t.ResourceID,
			ScalableDimension: t.ScalableDimension,
			MinCapacity:       t.MinCapacity,
			MaxCapacity:       t.MaxCapacity,
			RoleARN:           t.RoleARN,
			CreationTime:      *epoch(t.CreationTime),
			ScalableTargetARN: fmt.Sprintf("arn:aws:application-autoscaling:%s:%s:scalable-target/%s", c.region, s.account, strings.ReplaceAll(stableUUID(c.region+k), "-", "")),
		})
	}
	out.NextToken = next
	return out, nil
}

func (c *call) aasDescribeScalingPolicies() (any, error) {
	var in struct {
		PolicyNames       []string
		ServiceNamespace  string
		ResourceId        string
		ScalableDimension string
		MaxResults        *int32
		NextToken         string
	}
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admit("", tablesOf(in.ResourceId)...); err != nil {
		return nil, err
	}
	size, err := aasPage(in.ServiceNamespace, in.MaxResults, 10)
	if err != nil {
		return nil, err
	}
	if in.ScalableDimension != "" && in.ResourceId == "" {
		return nil, apiErr(ErrValidation, "If you specify a scalable dimension, you must also specify a resource ID.")
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.region(c.region)
	out := struct {
		ScalingPolicies []aasScalingPolicy
		NextToken       string `json:",omitempty"`
	}{ScalingPolicies: []aasScalingPolicy{}}
	if in.ServiceNamespace != "dynamodb" {
		return out, nil
	}
	keys := aasKeys(r.policies, in.PolicyNames, in.ResourceId, in.ScalableDimension, func(p *ScalingPolicy) [3]string {
		return [3]string{p.PolicyName, p.ResourceID, p.ScalableDimension}
	})
	page, next, err := pageAfter(keys, in.NextToken, size)
	if err != nil {
		return nil, err
	}
	for _, k := range page {
		out.ScalingPolicies = append(out.ScalingPolicies, s.policyDesc(c.region, r.policies[k]))
	}
	out.NextToken = next
	return out, nil
}

// policyDesc renders p with the ARNs and alarms AWS reports.
func (s *Server) policyDesc(region string, p *ScalingPolicy) aasScalingPolicy {
	id := stableUUID(region + p.ResourceID + p.ScalableDimension + p.PolicyName)
	alarm := func(kind string) aasAlarm {
		name := fmt.Sprintf("TargetTracking-%s-%s-%s", p.ResourceID, kind, stableUUID(id+kind))
		return aasAlarm{AlarmName: name, AlarmARN: fmt.Sprintf("arn:aws:cloudwatch:%s:%s:alarm:%s", region, s.account, name)}
	}
	return aasScalingPolicy{
		PolicyARN:         fmt.Sprintf("arn:aws:autoscaling:%s:%s:scalingPolicy:%s:resource/dynamodb/%s:policyName/%s", region, s.account, id, p.ResourceID, p.PolicyName),
		PolicyName:        p.PolicyName,
		ServiceNamespace:  "dynamodb",
		ResourceId:        p.ResourceID,
		ScalableDimension: p.ScalableDimension,
		PolicyType:        "TargetTrackingScaling",
		TargetTrackingScalingPolicyConfiguration: aasTargetTracking{
			TargetValue:                   p.TargetValue,
			PredefinedMetricSpecification: aasPredefinedMetric{PredefinedMetricType: p.PredefinedMetricType},
			ScaleOutCooldown:              p.ScaleOutCooldown,
			ScaleInCooldown:               p.ScaleInCooldown,
			DisableScaleIn:                p.DisableScaleIn,
		},
		Alarms:       []aasAlarm{alarm("AlarmHigh"), alarm("AlarmLow")},
		CreationTime: *epoch(p.CreationTime),
	}
}

// ScalableTargets returns the region's scalable targets sorted by resource
// ID and dimension.
func (s *Server) ScalableTargets(region string) []ScalableTarget {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.region(region)
	out := make([]ScalableTarget, 0, len(r.targets))
	for _, k := range slices.Sorted(maps.Keys(r.targets)) {
		out = append(out, *r.targets[k])
	}
	return out
}

// aasKeys returns, sorted, the keys of the items of m that a Describe call's
// filters select: one of names (none: any), the resource ID and the
// scalable dimension (empty: any). fields gives an item's name, resource ID
// and scalable dimension.
func aasKeys[T any](m map[string]T, names []string, resourceID, dimension string, fields func(T) [3]string) []string {
	var keys []string
	for k, v := range m {
		f := fields(v)
		if (len(names) == 0 || slices.Contains(names, f[0])) &&
			(resourceID == "" || resourceID == f[1]) &&
			(dimension == "" || dimension == f[2]) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
