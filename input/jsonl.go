package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON Lines is read by one set of rules:
//
//   - Each line holds one JSON object; a line of blanks is skipped. The
//     object's keys are columns: the columns are every key of the whole
//     input, and a key an object lacks is NULL there, as is null.
//   - A key given twice in one object, or two keys that differ only in case
//     (v and V: most engines fold them into one column), are refused.
//   - A nested object or array is kept as its JSON text, compact, keys in
//     their order and numbers exactly as written (never rounded). A string
//     holding a NUL (\u0000) is refused, as in CSV.

// jsonValue is what a JSON Lines value is.
type jsonValue uint8

const (
	jsonNone   jsonValue = iota // not JSON (a CSV field)
	jsonNull                    // null, or the key missing
	jsonBool                    // true or false
	jsonNumber                  // a number, its text as written
	jsonString                  // a string, its content unescaped
	jsonNested                  // an object or array, its canonical text
)

// errJSON is a fault of one line of JSON Lines.
type errJSON struct{ msg string }

func (e *errJSON) Error() string { return e.msg }

// jsonlReader reads a JSON Lines file a line at a time.
type jsonlReader struct {
	r    *bufio.Reader
	line int // the line last read
	long []byte
	p    jsonParser
}

func newJSONLReader(r io.Reader) *jsonlReader {
	return &jsonlReader{r: bufio.NewReaderSize(r, 1<<20)}
}

// nextLine returns the next line that is not blank, without its line end,
// valid until the following call; io.EOF at the end.
func (j *jsonlReader) nextLine() ([]byte, error) {
	for {
		b, err := j.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			j.long = append(j.long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if len(j.long) > maxRecord {
					return nil, &errJSON{msg: fmt.Sprintf("the line is longer than %d MiB", maxRecord>>20)}
				}
				b, err = j.r.ReadSlice('\n')
				j.long = append(j.long, b...)
			}
			b = j.long
		}
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, err
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		j.line++
		b = bytes.TrimRight(b, "\n")
		b = bytes.TrimRight(b, "\r")
		if len(bytes.TrimSpace(b)) == 0 {
			if err == io.EOF {
				return nil, io.EOF
			}
			continue
		}
		return b, nil
	}
}

// jsonParser reads one line's object. Its strings and nested values are
// written to out, which the caller resets per line.
type jsonParser struct {
	b     []byte
	i     int
	out   []byte
	depth int
	// The current object's keys, as spans of out: compared one by one
	// while they are few (no allocation a line), through keys past that.
	spans [][2]int
	keys  map[string]struct{}
	wide  bool
	// The previous object's keys, as spans of prev: while an object's
	// keys are those, in their order, none is given twice.
	prev      []byte
	prevSpans [][2]int
	inOrder   bool
}

// endObject ends an object, remembering its keys for the next one.
func (p *jsonParser) endObject(line []byte) error {
	if err := p.end(line); err != nil {
		return err
	}
	if p.inOrder && len(p.spans) == len(p.prevSpans) {
		return nil
	}
	p.prev, p.prevSpans = p.prev[:0], p.prevSpans[:0]
	for _, sp := range p.spans {
		p.prevSpans = append(p.prevSpans, [2]int{len(p.prev), len(p.prev) + sp[1] - sp[0]})
		p.prev = append(p.prev, p.out[sp[0]:sp[1]]...)
	}
	return nil
}

// keyAt is the position in its object of the key last read.
func (p *jsonParser) keyAt() int { return len(p.spans) - 1 }

// fewKeys is how many keys an object has before they go into a map.
const fewKeys = 16

// seenKey reports whether the key at out[start:end] was given before in
// the current object, and remembers it.
func (p *jsonParser) seenKey(start, end int) bool {
	key := p.out[start:end]
	k := len(p.spans)
	if p.inOrder && k < len(p.prevSpans) && bytes.Equal(key, p.prev[p.prevSpans[k][0]:p.prevSpans[k][1]]) {
		p.spans = append(p.spans, [2]int{start, end})
		return false // the keys so far are the previous object's, which were all different
	}
	p.inOrder = false
	if !p.wide && k < fewKeys {
		for _, sp := range p.spans {
			if bytes.Equal(p.out[sp[0]:sp[1]], key) {
				return true
			}
		}
		p.spans = append(p.spans, [2]int{start, end})
		return false
	}
	p.spans = append(p.spans, [2]int{start, end})
	if !p.wide {
		p.wide = true
		if p.keys == nil {
			p.keys = map[string]struct{}{}
		}
		clear(p.keys)
		for _, sp := range p.spans[:k] {
			p.keys[string(p.out[sp[0]:sp[1]])] = struct{}{}
		}
	}
	if _, dup := p.keys[string(key)]; dup {
		return true
	}
	p.keys[string(key)] = struct{}{}
	return false
}

// object parses line as one JSON object, calling fn with each key and
// value in order. Values' bytes live in p.out until the next reset.
func (p *jsonParser) object(line []byte, fn func(key []byte, f field) error) error {
	p.b, p.i = line, 0
	p.skipSpace()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return &errJSON{msg: "not a JSON object: " + abbreviate(string(line))}
	}
	p.i++
	p.spans, p.wide, p.inOrder = p.spans[:0], false, true
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return p.endObject(line)
	}
	for {
		p.skipSpace()
		kstart := len(p.out)
		if err := p.str(); err != nil {
			return p.wrap(err, line)
		}
		key := p.out[kstart:]
		if p.seenKey(kstart, len(p.out)) {
			return &errJSON{msg: fmt.Sprintf("the object names key %q twice", key)}
		}
		p.skipSpace()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return p.wrap(errors.New("a key is not followed by a colon"), line)
		}
		p.i++
		p.skipSpace()
		f, err := p.value()
		if err != nil {
			return p.wrap(err, line)
		}
		if err := fn(key, f); err != nil {
			return err
		}
		p.skipSpace()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return p.endObject(line)
		}
		return p.wrap(errors.New("expected , or }"), line)
	}
}

func (p *jsonParser) wrap(err error, line []byte) error {
	var je *errJSON
	if errors.As(err, &je) {
		return err
	}
	return &errJSON{msg: fmt.Sprintf("not a JSON object (%v at byte %d): %s", err, p.i+1, abbreviate(string(line)))}
}

func (p *jsonParser) end(line []byte) error {
	p.skipSpace()
	if p.i != len(p.b) {
		return p.wrap(errors.New("text after the object"), line)
	}
	return nil
}

func (p *jsonParser) skipSpace() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// value reads one value. Scalars are returned as fields; a nested value is
// written to out as canonical text.
func (p *jsonParser) value() (field, error) {
	if p.i >= len(p.b) {
		return field{}, errors.New("a value is missing")
	}
	switch c := p.b[p.i]; {
	case c == '"':
		start := len(p.out)
		if err := p.str(); err != nil {
			return field{}, err
		}
		return field{b: p.out[start:], json: jsonString}, nil
	case c == '{' || c == '[':
		start := len(p.out)
		if err := p.nested(); err != nil {
			return field{}, err
		}
		return field{b: p.out[start:], json: jsonNested}, nil
	case c == 't' && bytes.HasPrefix(p.b[p.i:], []byte("true")):
		p.i += 4
		return field{b: []byte("true"), json: jsonBool}, nil
	case c == 'f' && bytes.HasPrefix(p.b[p.i:], []byte("false")):
		p.i += 5
		return field{b: []byte("false"), json: jsonBool}, nil
	case c == 'n' && bytes.HasPrefix(p.b[p.i:], []byte("null")):
		p.i += 4
		return field{json: jsonNull}, nil
	case c == '-' || isDigit(c):
		start := p.i
		for p.i < len(p.b) && (isDigit(p.b[p.i]) || bytes.IndexByte([]byte("+-.eE"), p.b[p.i]) >= 0) {
			p.i++
		}
		num := p.b[start:p.i]
		if _, ok := scanNumber(num); !ok {
			return field{}, fmt.Errorf("%q is not a JSON number", num)
		}
		return field{b: num, json: jsonNumber}, nil
	}
	return field{}, fmt.Errorf("unexpected %q", p.b[p.i])
}

// nested writes the object or array at p.i to out, compact.
func (p *jsonParser) nested() error {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 1000 {
		return errors.New("nested more than 1000 deep")
	}
	open := p.b[p.i]
	closer := byte('}')
	if open == '[' {
		closer = ']'
	}
	p.out = append(p.out, open)
	p.i++
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == closer {
		p.i++
		p.out = append(p.out, closer)
		return nil
	}
	var seen map[string]struct{}
	if open == '{' {
		seen = map[string]struct{}{}
	}
	for n := 0; ; n++ {
		p.skipSpace()
		if n > 0 {
			p.out = append(p.out, ',')
		}
		if open == '{' {
			if err := p.nestedKey(seen); err != nil {
				return err
			}
		}
		if err := p.nestedValue(); err != nil {
			return err
		}
		p.skipSpace()
		if p.i < len(p.b) && p.b[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.b) && p.b[p.i] == closer {
			p.i++
			p.out = append(p.out, closer)
			return nil
		}
		return fmt.Errorf("expected , or %c", closer)
	}
}

// nestedKey writes a nested object's key at p.i, and its colon, to out;
// seen holds the object's keys so far.
func (p *jsonParser) nestedKey(seen map[string]struct{}) error {
	kstart := len(p.out)
	if err := p.str(); err != nil {
		return err
	}
	k := string(p.out[kstart:])
	if _, dup := seen[k]; dup {
		return &errJSON{msg: fmt.Sprintf("a nested object names key %q twice", k)}
	}
	seen[k] = struct{}{}
	p.out = appendJSONString(p.out[:kstart], p.out[kstart:])
	p.skipSpace()
	if p.i >= len(p.b) || p.b[p.i] != ':' {
		return errors.New("a key is not followed by a colon")
	}
	p.i++
	p.out = append(p.out, ':')
	p.skipSpace()
	return nil
}

// nestedValue writes the value at p.i to out as canonical text.
func (p *jsonParser) nestedValue() error {
	vstart := len(p.out)
	f, err := p.value()
	if err != nil {
		return err
	}
	switch f.json {
	case jsonString:
		p.out = appendJSONString(p.out[:vstart], p.out[vstart:])
	case jsonNull:
		p.out = append(p.out, "null"...)
	case jsonBool, jsonNumber:
		p.out = append(p.out, f.b...)
	}
	return nil
}

// appendJSONString appends s (unescaped text, which may alias the tail of
// b) as a JSON string literal.
func appendJSONString(b, s []byte) []byte {
	tmp := make([]byte, 0, len(s)+2)
	tmp = append(tmp, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			tmp = append(tmp, '\\', c)
		case c == '\n':
			tmp = append(tmp, '\\', 'n')
		case c == '\r':
			tmp = append(tmp, '\\', 'r')
		case c == '\t':
			tmp = append(tmp, '\\', 't')
		case c < 0x20:
			tmp = append(tmp, fmt.Sprintf(`\u%04x`, c)...)
		default:
			tmp = append(tmp, c)
		}
	}
	tmp = append(tmp, '"')
	return append(b, tmp...)
}

// str reads a string literal at p.i and appends its content to out.
func (p *jsonParser) str() error {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return errors.New("expected a string")
	}
	p.i++
	for {
		start := p.i
		var class byte // the bytes' classes ORed: strMulti when one is not ASCII
		for p.i < len(p.b) {
			c := strClass[p.b[p.i]]
			if c == strStop {
				break
			}
			class |= c
			p.i++
		}
		chunk := p.b[start:p.i]
		if class&strMulti != 0 && !utf8.Valid(chunk) {
			return &errJSON{msg: "a string is not valid UTF-8; re-encode the file as UTF-8"}
		}
		p.out = append(p.out, chunk...)
		if p.i >= len(p.b) {
			return errors.New("a string is never closed")
		}
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return nil
		case c < 0x20:
			return errors.New("a control character inside a string")
		}
		if err := p.escape(); err != nil {
			return err
		}
	}
}

// strClass sorts a string literal's bytes: strStop ends a run of plain
// bytes (the closing quote, an escape, a control character), strMulti is
// a byte of a multi-byte UTF-8 sequence (the run is then validated), the
// rest are ASCII taken as they are.
var strClass = func() (t [256]byte) {
	for c := range t {
		switch {
		case c == '"' || c == '\\' || c < 0x20:
			t[c] = strStop
		case c >= 0x80:
			t[c] = strMulti
		default:
			t[c] = strASCII
		}
	}
	return t
}()

const (
	strStop  = 0
	strASCII = 1
	strMulti = 2
)

// jsonEscapes is the byte each one-letter escape stands for (0: none).
var jsonEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape reads the escape whose backslash is at p.i and appends what it
// stands for to out.
func (p *jsonParser) escape() error {
	p.i++
	if p.i >= len(p.b) {
		return errors.New("a string is never closed")
	}
	e := p.b[p.i]
	p.i++
	if c := jsonEscapes[e]; c != 0 {
		p.out = append(p.out, c)
		return nil
	}
	if e != 'u' {
		return fmt.Errorf(`\%c is not a JSON escape`, e)
	}
	r, ok := p.hex4()
	if !ok {
		return errors.New(`a \u escape without four hex digits`)
	}
	if utf16.IsSurrogate(r) {
		if r, ok = p.lowSurrogate(r); !ok {
			return errors.New(`a \u escape without four hex digits`)
		}
		if r == utf8.RuneError {
			return &errJSON{msg: `a string holds half of a UTF-16 surrogate pair (\ud800 to \udfff alone is not text)`}
		}
	}
	if r == 0 {
		return &errJSON{msg: `a string holds a NUL (\u0000), which PostgreSQL cannot store in text`}
	}
	p.out = utf8.AppendRune(p.out, r)
	return nil
}

// lowSurrogate reads the \u escape at p.i that completes the surrogate
// pair r begins: utf8.RuneError when none follows or the pair is not one;
// false when that escape lacks its four hex digits.
func (p *jsonParser) lowSurrogate(r rune) (rune, bool) {
	if p.i+1 >= len(p.b) || p.b[p.i] != '\\' || p.b[p.i+1] != 'u' {
		return utf8.RuneError, true
	}
	p.i += 2
	r2, ok := p.hex4()
	if !ok {
		return 0, false
	}
	return utf16.DecodeRune(r, r2), true
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 16)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// abbreviate shortens a value for a message.
func abbreviate(s string) string {
	const limit = 60
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
}
