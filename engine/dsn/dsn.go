// Package dsn reads server target URLs the way idem reads them, with the
// password split off before anything else parses them, and hides passwords
// in everything idem prints. It sits below the engines, which parse their
// own URLs with it, and below the job file, which checks them.
package dsn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ErrURL marks a target URL that cannot be parsed. Its messages show the
// URL redacted.
var ErrURL = errors.New("malformed target URL")

// mask replaces a password in output.
const mask = "xxxxx"

// ServerURL is a server target URL (postgres://, mysql://) with its
// credentials split off the way idem reads them: everything between "//"
// and the last '@' is user:password, whatever it contains. Passwords are
// pasted into URLs unencoded ('/', '@', '?', '#' and all), and the usual
// parsers then misread part of the password as a host or port and print it
// in their errors. The price is that an '@' after the host (in a query
// parameter) must be written %40.
type ServerURL struct {
	Scheme      string // postgres, postgresql, mysql
	User        string // percent-decoded
	Password    string // percent-decoded
	HasPassword bool   // "user:" was given, even with an empty password
	// Rest is everything after the credentials: hosts, database, query.
	Rest string
}

// ParseServerURL splits a server URL's credentials off. Percent escapes in
// the user and password are decoded; a '%' that starts no escape is kept as
// typed. What follows the credentials is the engine's to read (see
// CheckHosts); errors never show the password.
func ParseServerURL(s string) (ServerURL, error) {
	if strings.ContainsRune(s, 0) {
		return ServerURL{}, fmt.Errorf("%w: %q contains a NUL byte", ErrURL, Redact(s))
	}
	scheme, after, ok := strings.Cut(s, "://")
	if !ok || scheme == "" {
		return ServerURL{}, fmt.Errorf("%w: %q has no scheme://", ErrURL, Redact(s))
	}
	u := ServerURL{Scheme: scheme, Rest: after}
	if at := strings.LastIndex(after, "@"); at >= 0 {
		creds := after[:at]
		u.Rest = after[at+1:]
		user, pw, hasPW := strings.Cut(creds, ":")
		u.User, u.Password, u.HasPassword = decodeLenient(user), decodeLenient(pw), hasPW
	}
	return u, nil
}

// WithoutPassword is the URL with the user but no password: what a driver
// may parse and echo.
func (u ServerURL) WithoutPassword() string {
	if u.User == "" {
		return u.Scheme + "://" + u.Rest
	}
	return u.Scheme + "://" + url.User(u.User).String() + "@" + u.Rest
}

// CheckHosts checks the host list u.Rest starts with (host[:port],…, up to
// '/' or '?'), for an engine whose URLs list hosts that way: a port must be
// a number. A port that is not is usually part of a password whose '@' was
// missed; the error wraps ErrURL and repeats neither.
func (u ServerURL) CheckHosts() error {
	if err := checkHosts(u.Rest); err != nil {
		return fmt.Errorf("%w: %q: %v", ErrURL, u.redacted(), err)
	}
	return nil
}

// redacted is the URL with its password masked, as Redact shows it.
func (u ServerURL) redacted() string {
	if !u.HasPassword {
		return u.WithoutPassword()
	}
	return u.Scheme + "://" + url.User(u.User).String() + ":" + mask + "@" + u.Rest
}

func checkHosts(rest string) error {
	hosts := rest
	if i := strings.IndexAny(hosts, "/?"); i >= 0 {
		hosts = hosts[:i]
	}
	for h := range strings.SplitSeq(hosts, ",") {
		name, port := h, ""
		if strings.HasPrefix(h, "[") {
			end := strings.IndexByte(h, ']')
			if end < 0 {
				return errors.New("an IPv6 host has no closing ]")
			}
			name, port = h[:end+1], strings.TrimPrefix(h[end+1:], ":")
			if rest := h[end+1:]; rest != "" && !strings.HasPrefix(rest, ":") {
				return fmt.Errorf("unexpected text after IPv6 host %s", name)
			}
		} else if i := strings.IndexByte(h, ':'); i >= 0 {
			name, port = h[:i], h[i+1:]
		}
		if strings.ContainsAny(name, " \t\r\n") {
			return errors.New("a host name contains white space")
		}
		if port == "" {
			continue
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("the port of host %q is not a number from 1 to 65535", name)
		}
	}
	return nil
}

// decodeLenient decodes %XX escapes and keeps any other '%' as typed: a
// password pasted with a bare '%' is still the password.
func decodeLenient(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// passwordParamRE finds a password given as a parameter
// (postgres://h/db?password=…, sslpassword=…, or key=value form).
// Besides passwords: the signatures, credentials and tokens of signed
// URLs and SAS tokens (source.files may name one).
var passwordParamRE = regexp.MustCompile(`(?i)((?:^|[?&\s])(?:(?:ssl)?password|sig|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential|access_key|secret_key|secret|token)=)`)

// Redact hides the passwords in a target URL, for output: the password of
// the credentials (everything between "//" and the last '@', as
// ParseServerURL reads them; the user name is kept) and password=
// parameters. It over-redacts rather than under: an '@' in a query hides
// the text before it.
func Redact(s string) string {
	isURL := strings.Contains(s, "://")
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := len(s)
		if j := strings.Index(s, "://"); j >= 0 {
			end = j
		}
		if at := strings.LastIndex(s[:end], "@"); at >= 0 {
			if user, _, hasPW := strings.Cut(s[:at], ":"); hasPW {
				b.WriteString(user + ":" + mask)
			} else {
				b.WriteString(s[:at])
			}
			s = s[at:]
		}
	}
	return redactParams(b.String(), isURL)
}

// redactParams masks password= values: in a URL up to the next '&' (a
// password may hold spaces), in other text up to white space.
func redactParams(s string, isURL bool) string {
	locs := passwordParamRE.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	prev := 0
	for _, l := range locs {
		if l[0] < prev { // inside the value just masked
			continue
		}
		b.WriteString(s[prev:l[1]])
		b.WriteString(mask)
		v := s[l[1]:]
		end := len(v)
		if isURL {
			if j := strings.IndexByte(v, '&'); j >= 0 {
				end = j
			}
		} else if j := strings.IndexAny(v, " \t\r\n&"); j >= 0 {
			end = j
		}
		prev = l[1] + end
	}
	b.WriteString(s[prev:])
	return b.String()
}

// Secrets lists the passwords a target URL carries, in its credentials or
// as password= parameters, as typed and decoded.
func Secrets(s string) []string {
	var out []string
	// Found the way ParseServerURL and Redact find them, so a URL that
	// does not parse still has its secrets.
	if _, after, ok := strings.Cut(s, "://"); ok {
		if at := strings.LastIndex(after, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(after[:at], ":"); ok {
				out = append(out, pw, decodeLenient(pw))
			}
		}
	}
	for _, l := range passwordParamRE.FindAllStringIndex(s, -1) {
		v, _, _ := strings.Cut(s[l[1]:], "&")
		word, _, _ := strings.Cut(v, " ")
		out = append(out, v, decodeLenient(v), word, decodeLenient(word))
	}
	return out
}

// Redactor hides known secrets in any text: every path that prints an
// error or a log line goes through one. Messages are built from Redact'ed
// URLs in the first place; the redactor is the second line, for text a
// driver or a library wrote.
type Redactor struct {
	spellings []string
}

// minSecret is the shortest secret masked in free text: masking every "a"
// would wreck the output and hide nothing worth hiding.
const minSecret = 3

// NewRedactor hides the secrets of every argument that is a URL (or holds
// password=).
func NewRedactor(args ...string) *Redactor {
	r := &Redactor{}
	for _, a := range args {
		if strings.Contains(a, "://") || passwordParamRE.MatchString(a) {
			r.Add(Secrets(a)...)
		}
	}
	return r
}

// Add hides secrets, in every spelling output might give them: as is,
// percent-encoded, and escaped as JSON and Go strings quote them.
func (r *Redactor) Add(secrets ...string) {
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		j, _ := json.Marshal(s)
		q := strconv.Quote(s)
		for _, v := range []string{s, url.PathEscape(s), url.QueryEscape(s),
			strings.TrimPrefix(url.UserPassword("", s).String(), ":"),
			string(j[1 : len(j)-1]), q[1 : len(q)-1], strings.ToLower(url.QueryEscape(s))} {
			if len(v) >= minSecret && !slices.Contains(r.spellings, v) {
				r.spellings = append(r.spellings, v)
			}
		}
	}
	// Longest first, so a secret is never half-masked by a shorter spelling.
	slices.SortFunc(r.spellings, func(a, b string) int { return len(b) - len(a) })
}

// String masks every known secret, then credentials and password=
// parameters of any URL in s.
func (r *Redactor) String(s string) string {
	if r != nil {
		for _, v := range r.spellings {
			s = strings.ReplaceAll(s, v, mask)
		}
	}
	// In free text a URL ends at white space: mask within each word that
	// has an unmasked password. (A word with a masked one is left alone:
	// the last '@' of a word can lie past the URL, in other text.)
	words := strings.Fields(s)
	for _, w := range words {
		if strings.Contains(w, "://") && !strings.Contains(w, ":"+mask+"@") {
			if red := Redact(w); red != w {
				s = strings.Replace(s, w, red, 1)
			}
		}
	}
	return redactParams(s, false)
}

// Error returns err with its message masked; errors.Is and errors.As still
// see the original.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := r.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Writer masks everything written through it. Each Write is masked on its
// own: callers write whole lines (slog, fmt.Fprintf), so a secret is never
// split across writes.
func (r *Redactor) Writer(w io.Writer) io.Writer { return &redactWriter{r: r, w: w} }

type redactWriter struct {
	r *Redactor
	w io.Writer
}

// Unwrap is the writer underneath: whether output goes to a terminal is
// its question, not the redactor's.
func (w *redactWriter) Unwrap() io.Writer { return w.w }

func (w *redactWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, w.r.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
