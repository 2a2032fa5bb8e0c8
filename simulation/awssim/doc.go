// Package awssim is a simulated AWS account: one local HTTP endpoint that the
// unchanged aws-sdk-go-v2 clients for DynamoDB, Application Auto Scaling,
// CloudWatch and STS talk to.
//
// The server speaks each service's real wire protocol:
//
//   - DynamoDB: AWS JSON 1.0, X-Amz-Target: DynamoDB_20120810.<Op>
//   - Application Auto Scaling: AWS JSON 1.1, X-Amz-Target: AnyScaleFrontendService.<Op>
//   - CloudWatch: Smithy RPC v2 CBOR, POST /service/GraniteServiceVersion20100801/operation/<Op>
//   - STS: the AWS query protocol (form-encoded Action=..., XML responses)
//
// Every request must carry a SigV4 Authorization header. Signatures are not
// verified, but the credential scope is: its region selects the per-region
// state (a table in us-east-1 is invisible from eu-west-1) and its access key
// selects the caller identity (see [Server.Identity]).
//
// The account is configured through the Go API ([Server.PutTable],
// [Server.PutScalableTarget], [Server.PutScalingPolicy],
// [Server.PutScheduledAction], [Server.Metrics],
// [Server.AddMetricSource]) and can be observed ([Server.Requests]) and
// broken on purpose ([Server.InjectFault], [Server.Deny]). [NewFixture] builds
// a small, deterministic account used by golden tests and demos.
//
// DynamoDB also has a data plane: PutItem, GetItem, DeleteItem,
// BatchWriteItem, Scan (parallel segments, Limit, the 1 MB page, projection,
// Select, consumed capacity) and UpdateTimeToLive. Items are loaded fast
// with [Server.PutItems] and observed with [Server.Item], [Server.Items] and
// [Server.ItemStats]. A simulated TTL process deletes expired items late
// (Table.TTLDeletionDelay) and counts each deletion in the CloudWatch metric
// TimeToLiveDeletedItemCount; it runs lazily whenever a request touches the
// table (see [Server.SweepTTL]). No key or attribute value ever appears in
// an error message or a log line.
//
// Every "now" comes from the server's [clock.Clock], so a test with a manual
// clock gets identical answers on every run.
package awssim
