// s3server — an S3-compatible object store for floe's tests and benchmarks: gofakes3 (MIT, Go
// module pinned in go.mod) with its in-memory backend, listening on a loopback address, plus
// what floe's tests need of a real store and gofakes3 leaves out:
//
//   - AWS Signature V4 checked on every request (header form) when -access-key-env and
//     -secret-key-env name the variables holding the one key pair it accepts: a wrong key id is
//     403 InvalidAccessKeyId, a wrong signature 403 SignatureDoesNotMatch, as S3 answers;
//   - a payload whose x-amz-content-sha256 is a hash is hashed and compared
//     (400 XAmzContentSHA256Mismatch); UNSIGNED-PAYLOAD is taken as S3 takes it;
//   - If-None-Match: * on CompleteMultipartUpload (gofakes3 honours it on PUT only): 412 when
//     the key exists;
//   - ListMultipartUploads on a bucket that never had one is an empty list (gofakes3: 404);
//   - with -log FILE, one line per request: method, path?query, x-amz-content-sha256, and
//     whether a Content-MD5 came (what the tests assert floe sent).
//
// Built by scripts/build-s3server.sh into build/tools/s3server.
package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

type server struct {
	backend *s3mem.Backend
	fake    http.Handler
	key     string
	secret  string
	logMu   sync.Mutex
	logFile *os.File
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on")
	keyEnv := flag.String("access-key-env", "", "variable holding the access key id to accept (none: no signature check)")
	secretEnv := flag.String("secret-key-env", "", "variable holding its secret key")
	logPath := flag.String("log", "", "file to append one line per request to")
	flag.Parse()
	s := &server{backend: s3mem.New()}
	s.fake = gofakes3.New(s.backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	if *keyEnv != "" {
		s.key, s.secret = os.Getenv(*keyEnv), os.Getenv(*secretEnv)
		if s.key == "" || s.secret == "" {
			log.Fatalf("s3server: %s and %s must both be set", *keyEnv, *secretEnv)
		}
	}
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			log.Fatal(err)
		}
		s.logFile = f
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("s3server: %q is not a loopback address", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	log.Fatal(http.Serve(ln, s))
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.logFile != nil {
		md5 := "-"
		if r.Header.Get("Content-MD5") != "" {
			md5 = "md5"
		}
		s.logMu.Lock()
		fmt.Fprintf(s.logFile, "%s %s %s %s\n", r.Method, r.RequestURI, orDash(r.Header.Get("X-Amz-Content-Sha256")), md5)
		s.logMu.Unlock()
	}
	if s.key != "" {
		if code, msg := s.authenticate(r); code != "" {
			fail(w, http.StatusForbidden, code, msg)
			return
		}
		if code := checkPayload(r); code != "" {
			fail(w, http.StatusBadRequest, code, "the payload does not match x-amz-content-sha256")
			return
		}
	}
	if r.Method == http.MethodPost && r.URL.Query().Has("uploadId") && r.Header.Get("If-None-Match") == "*" {
		if bucket, key, ok := splitPath(r.URL.Path); ok {
			if _, err := s.backend.HeadObject(bucket, key); err == nil {
				fail(w, http.StatusPreconditionFailed, "PreconditionFailed", "the object already exists")
				return
			}
		}
	}
	if r.Method == http.MethodGet && r.URL.Query().Has("uploads") {
		s.listUploads(w, r)
		return
	}
	s.fake.ServeHTTP(w, r)
}

// listUploads: gofakes3 answers ListMultipartUploads on a bucket that never had an upload with
// 404 NoSuchUpload; S3 answers an empty list.
func (s *server) listUploads(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	s.fake.ServeHTTP(rec, r)
	bucket := strings.Trim(r.URL.Path, "/")
	if rec.Code == http.StatusNotFound && bytes.Contains(rec.Body.Bytes(), []byte("NoSuchUpload")) {
		if ok, err := s.backend.BucketExists(bucket); ok && err == nil {
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListMultipartUploadsResult><Bucket>%s</Bucket>"+
				"<MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>", bucket)
			return
		}
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

func orDash(v string) string {
	if v == "" {
		return "-"
	}
	return v
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>%s</Message></Error>", code, msg)
}

func splitPath(p string) (bucket, key string, ok bool) {
	p = strings.TrimPrefix(p, "/")
	i := strings.IndexByte(p, '/')
	if i <= 0 || i == len(p)-1 {
		return "", "", false
	}
	return p[:i], p[i+1:], true
}

// authenticate checks the request's SigV4 Authorization header: "" when it is right, else the
// S3 error code and message.
func (s *server) authenticate(r *http.Request) (string, string) {
	auth := r.Header.Get("Authorization")
	const algo = "AWS4-HMAC-SHA256 "
	if !strings.HasPrefix(auth, algo) {
		return "AccessDenied", "no AWS Signature V4 Authorization header"
	}
	fields := map[string]string{}
	for _, f := range strings.Split(auth[len(algo):], ",") {
		if k, v, found := strings.Cut(strings.TrimSpace(f), "="); found {
			fields[k] = v
		}
	}
	cred := strings.Split(fields["Credential"], "/")
	if len(cred) != 5 || cred[4] != "aws4_request" {
		return "AuthorizationHeaderMalformed", "bad Credential"
	}
	if cred[0] != s.key {
		return "InvalidAccessKeyId", "the access key id is not known here"
	}
	date := r.Header.Get("X-Amz-Date")
	signed := strings.Split(fields["SignedHeaders"], ";")
	canonical := strings.Join([]string{r.Method, rawPath(r), canonicalQuery(r.URL.RawQuery),
		canonicalHeaders(r, signed), fields["SignedHeaders"], r.Header.Get("X-Amz-Content-Sha256")}, "\n")
	scope := strings.Join(cred[1:], "/")
	sum := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + date + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	k := []byte("AWS4" + s.secret)
	for _, part := range cred[1:] {
		k = mac(k, part)
	}
	want := hex.EncodeToString(mac(k, toSign))
	if !hmac.Equal([]byte(want), []byte(fields["Signature"])) {
		return "SignatureDoesNotMatch", "the request signature does not match"
	}
	return "", ""
}

func mac(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// rawPath is the path as the client sent it (S3 signs it as sent, not normalised).
func rawPath(r *http.Request) string {
	p, _, _ := strings.Cut(r.RequestURI, "?")
	if p == "" {
		return "/"
	}
	return p
}

func canonicalQuery(raw string) string {
	var pairs []string
	for _, kv := range strings.Split(raw, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		dk, err1 := url.QueryUnescape(k)
		dv, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			dk, dv = k, v
		}
		pairs = append(pairs, awsEscape(dk)+"="+awsEscape(dv))
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

func awsEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func canonicalHeaders(r *http.Request, names []string) string {
	var b strings.Builder
	for _, n := range names {
		var v string
		if n == "host" {
			v = r.Host
		} else if n == "content-length" {
			v = fmt.Sprint(r.ContentLength)
		} else {
			vals := r.Header.Values(n)
			for i := range vals {
				vals[i] = strings.Join(strings.Fields(vals[i]), " ")
			}
			v = strings.Join(vals, ",")
		}
		b.WriteString(n + ":" + v + "\n")
	}
	return b.String()
}

// checkPayload hashes a body whose x-amz-content-sha256 is a hash: "" when it matches.
func checkPayload(r *http.Request) string {
	want := r.Header.Get("X-Amz-Content-Sha256")
	if len(want) != 64 {
		return "" // UNSIGNED-PAYLOAD, STREAMING-…: nothing to compare here
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return "IncompleteBody"
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != want {
		return "XAmzContentSHA256Mismatch"
	}
	return ""
}
