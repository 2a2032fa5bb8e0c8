package awssim

import (
	"errors"
	"fmt"
	"net/http"
)

// ErrorKind is a protocol-independent AWS error. Each service answers it in
// its own wire shape and with its own error code (see wireError).
type ErrorKind string

// Error kinds that handlers, faults and the deny list produce.
const (
	ErrValidation       ErrorKind = "Validation"
	ErrInvalidParameter ErrorKind = "InvalidParameterValue"
	ErrResourceNotFound ErrorKind = "ResourceNotFound"
	// ErrTableNotFound is DynamoDB's TableNotFoundException, which the
	// backup operations (DescribeContinuousBackups) answer for a missing
	// table where the others answer ResourceNotFoundException
	// (DescribeContinuousBackups API reference, "Errors").
	ErrTableNotFound       ErrorKind = "TableNotFound"
	ErrLimitExceeded       ErrorKind = "LimitExceeded"
	ErrThrottling          ErrorKind = "Throttling"
	ErrAccessDenied        ErrorKind = "AccessDenied"
	ErrInternal            ErrorKind = "InternalError"
	ErrInvalidNextToken    ErrorKind = "InvalidNextToken"
	ErrMissingAuth         ErrorKind = "MissingAuthenticationToken"
	ErrIncompleteSignature ErrorKind = "IncompleteSignature"
	ErrInvalidSignature    ErrorKind = "InvalidSignature"
	ErrInvalidClientToken  ErrorKind = "InvalidClientToken"
	// ErrExpiredToken: "The security token included in the request is
	// expired", HTTP 403 (AWS API references, "Common Errors",
	// ExpiredTokenException); DynamoDB answers it with 400, as its other
	// authentication errors.
	ErrExpiredToken     ErrorKind = "ExpiredToken"
	ErrUnknownOperation ErrorKind = "UnknownOperation"
)

// apiError is an AWS error answered to the client.
type apiError struct {
	kind ErrorKind
	msg  string
}

// Error implements error.
func (e *apiError) Error() string { return fmt.Sprintf("%s: %s", e.kind, e.msg) }

// apiErr returns an *apiError of the given kind.
func apiErr(kind ErrorKind, msg string) *apiError { return &apiError{kind: kind, msg: msg} }

// accessDenied builds AWS's implicit-deny message for action.
func accessDenied(principal, action, resource string) *apiError {
	on := ""
	if resource != "" {
		on = " on resource: " + resource
	}
	return apiErr(ErrAccessDenied, fmt.Sprintf(
		"User: %s is not authorized to perform: %s%s because no identity-based policy allows the %s action",
		principal, action, on, action))
}

// wireErr is the on-the-wire identity of an error in one service.
type wireErr struct {
	typ    string // JSON/CBOR __type (fully qualified where AWS qualifies it)
	query  string // query-protocol code (STS body, CloudWatch X-Amzn-Query-Error)
	status int
}

// Namespaces AWS uses in DynamoDB's __type.
const (
	ddbNS   = "com.amazonaws.dynamodb.v20120810#"
	coralNS = "com.amazon.coral.service#"
	cwNS    = "com.amazonaws.cloudwatch#"
)

// wireError maps kind to the error code, query code and HTTP status that
// service answers with; proto is the request's protocol.
func wireError(service string, proto protocol, kind ErrorKind) wireErr {
	switch service {
	case ServiceDynamoDB:
		return dynamoWireError(kind)
	case ServiceCloudWatch:
		return cloudWatchWireError(kind)
	case ServiceAutoScaling:
		return autoScalingWireError(kind)
	case ServiceSTS:
		return stsWireError(kind)
	}
	return unknownWireError(proto, kind)
}

// unknownWireError answers a request no simulated service recognises: as
// the query services (STS's codes) for a form, else as DynamoDB (a
// com.amazon.coral.service#UnknownOperationException, never an empty
// __type the SDK would report as no code at all).
func unknownWireError(proto protocol, kind ErrorKind) wireErr {
	if proto == protoQuery {
		return stsWireError(kind)
	}
	return dynamoWireError(kind)
}

func dynamoWireError(kind ErrorKind) wireErr {
	switch kind {
	case ErrValidation, ErrInvalidParameter, ErrInvalidNextToken:
		return wireErr{"com.amazon.coral.validate#ValidationException", "ValidationException", 400}
	case ErrResourceNotFound:
		return wireErr{ddbNS + "ResourceNotFoundException", "ResourceNotFoundException", 400}
	case ErrTableNotFound:
		return wireErr{ddbNS + "TableNotFoundException", "TableNotFoundException", 400}
	case ErrLimitExceeded:
		return wireErr{ddbNS + "LimitExceededException", "LimitExceededException", 400}
	case ErrThrottling:
		return wireErr{"com.amazon.coral.availability#ThrottlingException", "ThrottlingException", 400}
	case ErrAccessDenied:
		return wireErr{coralNS + "AccessDeniedException", "AccessDeniedException", 400}
	case ErrMissingAuth:
		return wireErr{coralNS + "MissingAuthenticationTokenException", "MissingAuthenticationTokenException", 400}
	case ErrIncompleteSignature:
		return wireErr{coralNS + "IncompleteSignatureException", "IncompleteSignatureException", 400}
	case ErrInvalidSignature:
		return wireErr{coralNS + "InvalidSignatureException", "InvalidSignatureException", 400}
	case ErrInvalidClientToken:
		return wireErr{coralNS + "UnrecognizedClientException", "UnrecognizedClientException", 400}
	case ErrExpiredToken:
		return wireErr{coralNS + "ExpiredTokenException", "ExpiredTokenException", 400}
	case ErrUnknownOperation:
		return wireErr{coralNS + "UnknownOperationException", "UnknownOperationException", 400}
	}
	return wireErr{ddbNS + "InternalServerError", "InternalServerError", 500}
}

func autoScalingWireError(kind ErrorKind) wireErr {
	switch kind {
	case ErrValidation, ErrInvalidParameter:
		return wireErr{"ValidationException", "ValidationException", 400}
	case ErrInvalidNextToken:
		return wireErr{"InvalidNextTokenException", "InvalidNextTokenException", 400}
	case ErrResourceNotFound:
		return wireErr{"ObjectNotFoundException", "ObjectNotFoundException", 400}
	case ErrLimitExceeded:
		return wireErr{"LimitExceededException", "LimitExceededException", 400}
	case ErrThrottling:
		return wireErr{"ThrottlingException", "ThrottlingException", 400}
	case ErrAccessDenied:
		return wireErr{"AccessDeniedException", "AccessDeniedException", 400}
	case ErrMissingAuth:
		return wireErr{"MissingAuthenticationTokenException", "MissingAuthenticationTokenException", 403}
	case ErrIncompleteSignature:
		return wireErr{"IncompleteSignatureException", "IncompleteSignatureException", 403}
	case ErrInvalidSignature:
		return wireErr{"InvalidSignatureException", "InvalidSignatureException", 403}
	case ErrInvalidClientToken:
		return wireErr{"UnrecognizedClientException", "UnrecognizedClientException", 403}
	case ErrExpiredToken:
		return wireErr{"ExpiredTokenException", "ExpiredTokenException", 403}
	case ErrUnknownOperation:
		return wireErr{"UnknownOperationException", "UnknownOperationException", 400}
	}
	return wireErr{"InternalServiceException", "InternalServiceException", 500}
}

// cloudWatchWireError follows CloudWatch's awsQueryCompatible behaviour: the
// CBOR __type names the Smithy shape and X-Amzn-Query-Error carries the
// legacy query code, which the SDK reports as the error code.
func cloudWatchWireError(kind ErrorKind) wireErr {
	switch kind {
	case ErrValidation:
		return wireErr{cwNS + "ValidationException", "ValidationError", 400}
	case ErrInvalidParameter:
		return wireErr{cwNS + "InvalidParameterValueException", "InvalidParameterValue", 400}
	case ErrInvalidNextToken:
		return wireErr{cwNS + "InvalidNextToken", "InvalidNextToken", 400}
	case ErrResourceNotFound:
		return wireErr{cwNS + "ResourceNotFoundException", "ResourceNotFoundException", 404}
	case ErrLimitExceeded:
		return wireErr{cwNS + "LimitExceededException", "LimitExceededException", 400}
	case ErrThrottling:
		return wireErr{"ThrottlingException", "Throttling", 400}
	case ErrAccessDenied:
		return wireErr{"AccessDeniedException", "AccessDenied", 403}
	case ErrMissingAuth:
		return wireErr{"MissingAuthenticationTokenException", "MissingAuthenticationToken", 403}
	case ErrIncompleteSignature:
		return wireErr{"IncompleteSignatureException", "IncompleteSignature", 403}
	case ErrInvalidSignature:
		return wireErr{"InvalidSignatureException", "InvalidSignatureException", 403}
	case ErrInvalidClientToken:
		return wireErr{"InvalidClientTokenIdException", "InvalidClientTokenId", 403}
	case ErrExpiredToken:
		return wireErr{"ExpiredTokenException", "ExpiredToken", 403}
	case ErrUnknownOperation:
		return wireErr{"UnknownOperationException", "InvalidAction", 400}
	}
	return wireErr{cwNS + "InternalServiceFault", "InternalServiceError", 500}
}

func stsWireError(kind ErrorKind) wireErr {
	switch kind {
	case ErrValidation, ErrInvalidParameter, ErrInvalidNextToken:
		return wireErr{"", "ValidationError", 400}
	case ErrResourceNotFound:
		return wireErr{"", "NoSuchEntity", 404}
	case ErrLimitExceeded:
		return wireErr{"", "LimitExceeded", 400}
	case ErrThrottling:
		return wireErr{"", "Throttling", 400}
	case ErrAccessDenied:
		return wireErr{"", "AccessDenied", 403}
	case ErrMissingAuth:
		return wireErr{"", "MissingAuthenticationToken", 403}
	case ErrIncompleteSignature:
		return wireErr{"", "IncompleteSignature", 403}
	case ErrInvalidSignature:
		return wireErr{"", "SignatureDoesNotMatch", 403}
	case ErrInvalidClientToken:
		return wireErr{"", "InvalidClientTokenId", 403}
	case ErrExpiredToken:
		return wireErr{"", "ExpiredToken", 403}
	case ErrUnknownOperation:
		return wireErr{"", "InvalidAction", 400}
	}
	return wireErr{"", "InternalFailure", 500}
}

// asAPIError converts any handler error to an *apiError; unexpected errors
// become an internal error whose details stay in the server log.
func (s *Server) asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	s.log.Error("awssim: internal error", "err", err)
	return apiErr(ErrInternal, http.StatusText(http.StatusInternalServerError))
}
