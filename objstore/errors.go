package objstore

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"gocloud.dev/gcerrors"
	"google.golang.org/api/googleapi"
)

// opError is every error of the package that concerns an object: one line
// naming the operation, the object's URL and what the store said. It
// unwraps to the kind (fs.ErrNotExist, fs.ErrPermission, ErrChanged) and to
// the driver's error (context.Canceled, SDK types), whose text it never
// prints: SDK messages run over several lines and may carry request URLs.
type opError struct {
	op, url, detail string
	kind            error // nil, fs.ErrNotExist, fs.ErrPermission, ErrChanged
	err             error
}

func (e *opError) Error() string {
	return "objstore: " + e.op + " " + e.url + ": " + e.detail
}

func (e *opError) Unwrap() []error {
	var errs []error
	if e.kind != nil {
		errs = append(errs, e.kind)
	}
	if e.err != nil {
		errs = append(errs, e.err)
	}
	return errs
}

// errorf is an opError of ours (not the store's) about key.
func (s *Store) errorf(op, key string, err error) error {
	return &opError{op: op, url: s.URL(key), detail: err.Error(), err: err}
}

// wrap turns a driver error of op on key into an opError.
func (s *Store) wrap(op, key string, err error) error {
	if err == nil {
		return nil
	}
	var oe *opError
	if errors.As(err, &oe) {
		return err
	}
	e := &opError{op: op, url: s.URL(key), err: err, detail: describe(err)}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		e.kind = fs.ErrNotExist
	case gcerrors.PermissionDenied:
		e.kind = fs.ErrPermission
	}
	if e.kind == nil {
		// Drivers that map no code still carry the HTTP status.
		switch status(err) {
		case 404:
			e.kind = fs.ErrNotExist
		case 401, 403:
			e.kind = fs.ErrPermission
		}
	}
	return e
}

// status returns the HTTP status of a driver's error, or 0.
func status(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	var ae *azcore.ResponseError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

// describe says in one line what the store answered: "403 AccessDenied:
// Access Denied", "404 NotFound", or the transport's error.
func describe(err error) string {
	var b strings.Builder
	st := status(err)
	var ae smithy.APIError
	var aze *azcore.ResponseError
	var ge *googleapi.Error
	switch {
	case errors.As(err, &ae):
		if st != 0 {
			b.WriteString(strconv.Itoa(st) + " ")
		}
		b.WriteString(ae.ErrorCode())
		if m := ae.ErrorMessage(); m != "" && m != ae.ErrorCode() {
			b.WriteString(": " + m)
		}
		var re *smithyhttp.ResponseError
		if errors.As(err, &re) && re.Response != nil {
			if r := re.Response.Header.Get("X-Amz-Bucket-Region"); r != "" && (st == 301 || st == 400) {
				fmt.Fprintf(&b, " (the bucket is in region %s: set AWS_REGION or --s3-region)", r)
			}
		}
	case errors.As(err, &aze):
		fmt.Fprintf(&b, "%d %s", aze.StatusCode, aze.ErrorCode)
	case errors.As(err, &ge):
		fmt.Fprintf(&b, "%d", ge.Code)
		if ge.Message != "" {
			b.WriteString(": " + ge.Message)
		}
	case st != 0:
		b.WriteString(strconv.Itoa(st))
	default:
		b.WriteString(plainText(err))
	}
	var me *retry.MaxAttemptsError
	if errors.As(err, &me) {
		fmt.Fprintf(&b, " (after %d attempts)", me.Attempt)
	}
	return oneLine(errors.New(b.String())).Error()
}

// plainText is the message of an error that carries no store answer (a
// refused connection, missing credentials, a local file error), without
// the wrappers' prefixes and without any URL, whose query could hold a
// signature or SAS token.
func plainText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	msg := err.Error()
	if strings.Contains(msg, "get identity") || strings.Contains(msg, "failed to retrieve credentials") || strings.Contains(msg, "failed to refresh cached credentials") {
		return "no usable AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)"
	}
	// gocloud's `blob (key "k") (code=Unknown): ` and the SDK's
	// `operation error S3: GetObject, ` say nothing the opError does not.
	for {
		var oe *smithy.OperationError
		if errors.As(err, &oe) && oe.Err != nil {
			err = oe.Err
			msg = err.Error()
			continue
		}
		break
	}
	if i := strings.Index(msg, "): "); strings.HasPrefix(msg, "blob (") && i >= 0 {
		msg = msg[i+3:]
	}
	return msg
}

// oneLine folds err's text to one line of bounded length.
func oneLine(err error) error {
	msg := err.Error()
	if !strings.ContainsAny(msg, "\r\n") && len(msg) <= 400 {
		return err
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 400 {
		msg = msg[:400] + "..."
	}
	return &foldedError{msg: msg, err: err}
}

// foldedError is an error shown folded to one line.
type foldedError struct {
	msg string
	err error
}

func (e *foldedError) Error() string { return e.msg }
func (e *foldedError) Unwrap() error { return e.err }
